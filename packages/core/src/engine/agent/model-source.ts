import {
	defaultModelFromEnv,
	loadProjectConfig,
	type ModelConfig,
	PROJECT_CONFIG_FILE,
	resolveModel,
} from "../../config/project-config.js";
import { ConfigError } from "../../config/system-config.js";
import { AiSdkModel } from "../../model/ai-sdk/adapter.js";
import type { ModelAdapter } from "../../model/model-adapter.js";

/**
 * Where a Session's model comes from. Only the model *reference* is fixed when a Session is
 * made; credentials are read from the current project config and environment each time a
 * Session loads, so fixing a key and resuming works.
 */
export type ModelSource =
	| { kind: "given"; adapter: ModelAdapter }
	/**
	 * `chosen`: the host named this model for the agent (`AgentOptions.modelName`), so it wins
	 * over the model a resumed Session recorded; otherwise a resumed Session keeps its own.
	 */
	| { kind: "config"; ref: string; configDir: string; chosen?: true }
	| { kind: "env-default"; ref: "default" };

/**
 * Builds the model for a Session as it loads. `injected` maps model names of `omniloop.yaml` to
 * adapters the host made itself (tests, embedding); they take the place of the configured provider.
 */
export function loadModel(
	source: ModelSource,
	env: NodeJS.ProcessEnv = process.env,
	injected: Readonly<Record<string, ModelAdapter>> = {},
): ModelAdapter {
	if (source.kind !== "given" && injected[source.ref] !== undefined) return injected[source.ref] as ModelAdapter;
	switch (source.kind) {
		case "given":
			return source.adapter;
		case "env-default": {
			const fallback = defaultModelFromEnv(env);
			if (fallback === undefined) {
				throw new ConfigError(
					"(environment)",
					"",
					"OPENAI_API_KEY or ANTHROPIC_API_KEY to be set for the default model",
				);
			}
			return adapterFor(
				resolveModel(fallback.name, fallback.model, env, "(environment)"),
				`the default model ${fallback.model.provider}:${fallback.model.model}, from the provider key in the environment`,
			);
		}
		case "config": {
			const { config, file } = loadProjectConfig(source.configDir);
			const where = file ?? `${source.configDir}/${PROJECT_CONFIG_FILE}`;
			const model = config.models[source.ref];
			if (model === undefined)
				throw new ConfigError(where, `models.${source.ref}`, "the model this Session was made with");
			return adapterFor(resolveModel(source.ref, model, env, where), `model \`${source.ref}\` in ${where}`);
		}
	}
}

/** `where` tells a person which entry of their config the model is (for "cannot connect" errors). */
function adapterFor(model: ModelConfig, where: string): ModelAdapter {
	return AiSdkModel.fromConfig(
		{
			provider: model.provider,
			model: model.model,
			...(model.apiKey === undefined ? {} : { apiKey: model.apiKey }),
			...(model.baseURL === undefined ? {} : { baseURL: model.baseURL }),
			...(model.headers === undefined ? {} : { headers: model.headers }),
		},
		{ where, ...(model.maxOutputTokens === undefined ? {} : { maxOutputTokens: model.maxOutputTokens }) },
	);
}

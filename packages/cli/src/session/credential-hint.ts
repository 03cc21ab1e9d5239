import { loadProjectConfig } from "@omniloop/core";

/** Where the key a Session's model sends comes from, so an auth failure can say what to fix. */
export type CredentialSource =
	| { kind: "config"; file: string; modelName: string; apiKey: string | undefined }
	| { kind: "variable"; variable: string; readBy: string }
	| { kind: "none" };

export interface CredentialLookup {
	configDir: string;
	agentId: string;
	env: NodeJS.ProcessEnv;
	/** --model <name>: a model of omniloop.yaml in place of the agent's. */
	modelName?: string | undefined;
	/** The model name a resumed Session was made with (its Trace header). */
	recordedModelRef?: string | undefined;
	/** --model provider:model: the provider's standard variable. */
	providerVariable?: { variable: string; flag: string } | undefined;
}

/** Finds the credential behind the agent's model: omniloop.yaml's apiKey, or the default model's variable. */
export function findCredential(lookup: CredentialLookup): CredentialSource {
	if (lookup.providerVariable !== undefined) {
		return {
			kind: "variable",
			variable: lookup.providerVariable.variable,
			readBy: `--model ${lookup.providerVariable.flag}`,
		};
	}
	let project: ReturnType<typeof loadProjectConfig>;
	try {
		project = loadProjectConfig(lookup.configDir);
	} catch {
		return { kind: "none" };
	}
	if (project.file === undefined) {
		// The same choice as the key-only default model: Anthropic's key when both are set.
		const variable = lookup.env.ANTHROPIC_API_KEY ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
		return { kind: "variable", variable, readBy: "the default model" };
	}
	const modelName =
		lookup.modelName ?? lookup.recordedModelRef ?? project.config.agents[lookup.agentId]?.model ?? undefined;
	const model = modelName === undefined ? undefined : project.config.models[modelName];
	if (modelName === undefined || model === undefined) return { kind: "none" };
	return { kind: "config", file: project.file, modelName, apiKey: model.apiKey };
}

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The `${VAR}` names a config value references. */
export function referencedVariables(value: string): string[] {
	return [...value.matchAll(ENV_REFERENCE)].map((match) => match[1] as string);
}

/** One sentence saying which credential to set. */
export function credentialHint(source: CredentialSource): string {
	switch (source.kind) {
		case "variable":
			return `Set ${source.variable} to a valid key (${source.readBy} reads it) and try again.`;
		case "none":
			return "Check the API key of the agent's model in omniloop.yaml.";
		case "config": {
			const key = `models.${source.modelName}.apiKey`;
			if (source.apiKey === undefined) {
				return `${key} is not set in ${source.file}: add one, e.g. apiKey: "\${MY_API_KEY}", and set that variable.`;
			}
			const variables = referencedVariables(source.apiKey);
			if (variables.length === 0) {
				return `The key written in ${source.file} (${key}) was refused: put a valid key there, or better a reference such as "\${MY_API_KEY}".`;
			}
			return `Set ${variables.join(" and ")} to a valid key (${key} in ${source.file} reads it) and try again.`;
		}
	}
}

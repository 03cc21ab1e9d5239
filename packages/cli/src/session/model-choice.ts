import { AiSdkModel, type ModelAdapter } from "@omniloop/core";
import { UsageError } from "../errors.js";

/** Providers --model can name directly, each with the variable its key is read from. */
const PROVIDER_VARIABLES = {
	openai: "OPENAI_API_KEY",
	"openai-chat": "OPENAI_API_KEY",
	anthropic: "ANTHROPIC_API_KEY",
	google: "GOOGLE_GENERATIVE_AI_API_KEY",
} as const;

type FlagProvider = keyof typeof PROVIDER_VARIABLES;

/** What --model asks for: nothing (the agent's own model), a model of omniloop.yaml, or provider:model. */
export type ModelChoice =
	| { kind: "agent" }
	| { kind: "named"; name: string }
	| { kind: "provider"; provider: FlagProvider; model: string; variable: string; flag: string };

function isFlagProvider(name: string): name is FlagProvider {
	return Object.hasOwn(PROVIDER_VARIABLES, name);
}

export function parseModelFlag(value: string | undefined): ModelChoice {
	if (value === undefined) return { kind: "agent" };
	const colon = value.indexOf(":");
	const provider = colon === -1 ? "" : value.slice(0, colon);
	const model = value.slice(colon + 1);
	if (provider === "openai-compatible") {
		throw new UsageError(
			`--model ${value}: an openai-compatible model needs a baseURL; define it in omniloop.yaml (see the README) and pass its name`,
		);
	}
	if (!isFlagProvider(provider)) return { kind: "named", name: value };
	if (model === "") throw new UsageError(`--model ${value}: name the model after the colon, e.g. ${provider}:<model>`);
	return { kind: "provider", provider, model, variable: PROVIDER_VARIABLES[provider], flag: value };
}

/** The adapter for --model provider:model, keyed from the provider's standard variable. */
export function providerModel(
	choice: Extract<ModelChoice, { kind: "provider" }>,
	env: NodeJS.ProcessEnv,
): ModelAdapter {
	const apiKey = env[choice.variable];
	if (apiKey === undefined || apiKey === "") {
		throw new UsageError(`--model ${choice.flag} reads its key from ${choice.variable}, which is not set`);
	}
	return AiSdkModel.fromConfig({ provider: choice.provider, model: choice.model, apiKey });
}

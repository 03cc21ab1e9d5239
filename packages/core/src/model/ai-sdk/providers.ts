import type { LanguageModelV3 } from "@ai-sdk/provider";

/** The model providers an `AiSdkModel` speaks to. */
export type ProviderKind = "openai" | "openai-chat" | "openai-compatible" | "anthropic" | "google";

export const PROVIDER_KINDS: readonly ProviderKind[] = [
	"openai",
	"openai-chat",
	"openai-compatible",
	"anthropic",
	"google",
];

/** Where each provider's requests go when the config names no baseURL (openai-compatible needs one). */
export const DEFAULT_BASE_URLS: Readonly<Record<ProviderKind, string | undefined>> = {
	openai: "https://api.openai.com/v1",
	"openai-chat": "https://api.openai.com/v1",
	"openai-compatible": undefined,
	anthropic: "https://api.anthropic.com/v1",
	google: "https://generativelanguage.googleapis.com/v1beta",
};

/** A model as the project config names it (credentials already resolved). */
export interface ProviderModelConfig {
	provider: ProviderKind;
	model: string;
	apiKey?: string;
	/** Required for openai-compatible (Ollama, vLLM, llama.cpp server, OpenRouter…); optional elsewhere. */
	baseURL?: string;
	headers?: Record<string, string>;
	/** The fetch to use (tests, proxies); defaults to the global fetch. */
	fetch?: typeof globalThis.fetch;
}

/** A model's provider settings cannot work (an unknown provider, a missing base URL). */
export class ProviderConfigError extends Error {
	override readonly name = "ProviderConfigError";
}

/** Checks what can be checked before the provider's SDK loads: a config error is reported at once. */
export function checkProviderConfig(config: ProviderModelConfig): void {
	if (config.provider === "openai-compatible" && config.baseURL === undefined) {
		throw new ProviderConfigError(
			`model ${config.model}: provider openai-compatible needs a baseURL (e.g. http://127.0.0.1:11434/v1)`,
		);
	}
}

/**
 * Builds the AI SDK LanguageModelV3 for a configured model. Each provider's SDK is loaded the
 * first time a model of it is used: loading them all costs more than the rest of omniloop.
 */
export async function loadLanguageModel(config: ProviderModelConfig): Promise<LanguageModelV3> {
	checkProviderConfig(config);
	const common = {
		...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
		...(config.baseURL === undefined ? {} : { baseURL: config.baseURL }),
		...(config.headers === undefined ? {} : { headers: config.headers }),
		...(config.fetch === undefined ? {} : { fetch: config.fetch }),
	};
	switch (config.provider) {
		case "openai":
			return (await import("@ai-sdk/openai")).createOpenAI(common).responses(config.model);
		case "openai-chat":
			return (await import("@ai-sdk/openai")).createOpenAI(common).chat(config.model);
		case "openai-compatible":
			return (await import("@ai-sdk/openai-compatible"))
				.createOpenAICompatible({
					name: "compatible",
					includeUsage: true,
					...common,
					baseURL: config.baseURL as string,
				})
				.chatModel(config.model);
		case "anthropic":
			return (await import("@ai-sdk/anthropic")).createAnthropic(common)(config.model);
		case "google":
			return (await import("@ai-sdk/google")).createGoogleGenerativeAI(common)(config.model);
	}
}

import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";

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

export class ProviderConfigError extends Error {
	override readonly name = "ProviderConfigError";
}

/** Builds the AI SDK LanguageModelV3 for a configured model. */
export function languageModel(config: ProviderModelConfig): LanguageModelV3 {
	const common = {
		...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
		...(config.baseURL === undefined ? {} : { baseURL: config.baseURL }),
		...(config.headers === undefined ? {} : { headers: config.headers }),
		...(config.fetch === undefined ? {} : { fetch: config.fetch }),
	};
	switch (config.provider) {
		case "openai":
			return createOpenAI(common).responses(config.model);
		case "openai-chat":
			return createOpenAI(common).chat(config.model);
		case "openai-compatible":
			if (config.baseURL === undefined) {
				throw new ProviderConfigError(
					`model ${config.model}: provider openai-compatible needs a baseURL (e.g. http://127.0.0.1:11434/v1)`,
				);
			}
			return createOpenAICompatible({
				name: "compatible",
				includeUsage: true,
				...common,
				baseURL: config.baseURL,
			}).chatModel(config.model);
		case "anthropic":
			return createAnthropic(common)(config.model);
		case "google":
			return createGoogleGenerativeAI(common)(config.model);
	}
}

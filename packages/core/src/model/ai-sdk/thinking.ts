import type { SharedV3ProviderOptions } from "@ai-sdk/provider";
import type { ThinkingLevel } from "../model-adapter.js";
import type { ProviderKind } from "./providers.js";

/** Anthropic and Gemini take a token budget for thinking; these follow pi's tested ladder. */
const BUDGETS: Record<Exclude<ThinkingLevel, "off">, number> = {
	minimal: 1024,
	low: 2048,
	medium: 8192,
	high: 16_384,
	xhigh: 32_000,
};

/**
 * A thinking level as each provider spells it: OpenAI's reasoning effort, Anthropic's thinking
 * budget, Gemini's thinking budget. `off` turns thinking off where the API can; undefined
 * (no level) leaves the provider's default alone.
 */
export function thinkingOptions(
	provider: ProviderKind,
	level: ThinkingLevel | undefined,
	providerName: string,
): SharedV3ProviderOptions {
	if (level === undefined) return {};
	switch (provider) {
		case "openai":
		case "openai-chat":
			return { openai: { reasoningEffort: level === "off" ? "none" : level } };
		case "openai-compatible":
			return level === "off" ? {} : { [providerName]: { reasoningEffort: level === "xhigh" ? "high" : level } };
		case "anthropic":
			return {
				anthropic: {
					thinking: level === "off" ? { type: "disabled" } : { type: "enabled", budgetTokens: BUDGETS[level] },
				},
			};
		case "google":
			return {
				google: {
					thinkingConfig:
						level === "off" ? { thinkingBudget: 0 } : { thinkingBudget: BUDGETS[level], includeThoughts: true },
				},
			};
	}
}

import type { LanguageModelV3StreamPart, LanguageModelV3Usage, SharedV3ProviderMetadata } from "@ai-sdk/provider";
import type { JsonObject, Usage } from "../../messages/omni-message.js";
import type { FinishReason, ModelEvent } from "../model-adapter.js";

/** What a stream part turns into: events to yield, and whether the stream has finished or failed. */
export type PartResult =
	| { kind: "events"; events: ModelEvent[] }
	| { kind: "finish"; events: ModelEvent[]; finishReason: FinishReason }
	| { kind: "error"; error: unknown };

const NONE: PartResult = { kind: "events", events: [] };

/**
 * Turns AI SDK stream parts into model events, keeping what it must between parts: the text of
 * each open text or reasoning block (to emit the complete item at its end) and its provider
 * metadata (signatures arrive on deltas or ends). One instance per request.
 */
export class StreamPartMapper {
	private readonly texts = new Map<string, string>();
	private readonly reasonings = new Map<string, { text: string; metadata: JsonObject | undefined }>();
	private readonly toolNames = new Map<string, string>();

	map(part: LanguageModelV3StreamPart): PartResult {
		switch (part.type) {
			case "text-start":
				this.texts.set(part.id, "");
				return NONE;
			case "text-delta":
				if (part.delta === "") return NONE;
				this.texts.set(part.id, (this.texts.get(part.id) ?? "") + part.delta);
				return one({ type: "text_delta", delta: part.delta });
			case "text-end": {
				const text = this.texts.get(part.id) ?? "";
				this.texts.delete(part.id);
				return text === "" ? NONE : one({ type: "text", text });
			}
			case "reasoning-start":
				this.reasonings.set(part.id, { text: "", metadata: mergeMetadata(undefined, part.providerMetadata) });
				return NONE;
			case "reasoning-delta": {
				const open = this.reasonings.get(part.id) ?? { text: "", metadata: undefined };
				open.text += part.delta;
				open.metadata = mergeMetadata(open.metadata, part.providerMetadata);
				this.reasonings.set(part.id, open);
				return part.delta === "" ? NONE : one({ type: "reasoning_delta", delta: part.delta });
			}
			case "reasoning-end": {
				const open = this.reasonings.get(part.id) ?? { text: "", metadata: undefined };
				this.reasonings.delete(part.id);
				const metadata = mergeMetadata(open.metadata, part.providerMetadata);
				if (open.text === "" && metadata === undefined) return NONE;
				return one(
					metadata === undefined
						? { type: "reasoning", text: open.text }
						: { type: "reasoning", text: open.text, providerMetadata: metadata },
				);
			}
			case "tool-input-start":
				if (part.providerExecuted) return NONE;
				this.toolNames.set(part.id, part.toolName);
				return NONE;
			case "tool-input-delta": {
				const name = this.toolNames.get(part.id);
				if (name === undefined || part.delta === "") return NONE;
				return one({ type: "tool_call_delta", callId: part.id, name, delta: part.delta });
			}
			case "tool-call": {
				if (part.providerExecuted) return NONE;
				this.toolNames.delete(part.toolCallId);
				const metadata = mergeMetadata(undefined, part.providerMetadata);
				const call: Extract<ModelEvent, { type: "tool_call" }> = {
					type: "tool_call",
					callId: part.toolCallId,
					name: part.toolName,
					arguments: part.input,
				};
				if (metadata !== undefined) call.providerMetadata = metadata;
				return one(call);
			}
			case "finish":
				if (isMissingFinish(part)) {
					return { kind: "error", error: new EmptyStreamEndError() };
				}
				return {
					kind: "finish",
					events: [{ type: "usage", usage: toUsage(part.usage) }],
					finishReason: toFinishReason(part.finishReason.unified),
				};
			case "error":
				return { kind: "error", error: part.error };
			default:
				return NONE;
		}
	}
}

/**
 * The OpenAI providers emit a finish part even when the stream ended before the provider's own
 * finish arrived: its reason is then the SDK's starting default ("other", no raw value) and it
 * carries no usage. That is a truncated stream, not a finish.
 */
function isMissingFinish(part: Extract<LanguageModelV3StreamPart, { type: "finish" }>): boolean {
	return (
		part.finishReason.unified === "other" &&
		part.finishReason.raw === undefined &&
		part.usage.inputTokens.total === undefined
	);
}

/** A stream that ended without its finish; classified as malformed. */
export class EmptyStreamEndError extends Error {
	override readonly name = "EmptyStreamEndError";
	constructor() {
		super("the stream ended without its finish");
	}
}

function one(event: ModelEvent): PartResult {
	return { kind: "events", events: [event] };
}

export function toUsage(usage: LanguageModelV3Usage): Usage {
	const cacheRead = usage.inputTokens.cacheRead ?? 0;
	const cacheWrite = usage.inputTokens.cacheWrite ?? 0;
	const input = usage.inputTokens.total ?? (usage.inputTokens.noCache ?? 0) + cacheRead + cacheWrite;
	const output = usage.outputTokens.total ?? (usage.outputTokens.text ?? 0) + (usage.outputTokens.reasoning ?? 0);
	return { input, output, cacheRead, cacheWrite, reasoning: usage.outputTokens.reasoning ?? 0, total: input + output };
}

function toFinishReason(unified: string): FinishReason {
	switch (unified) {
		case "stop":
			return "stop";
		case "tool-calls":
			return "tool_calls";
		case "length":
			return "length";
		case "content-filter":
			return "content_filter";
		default:
			return "other";
	}
}

function mergeMetadata(
	into: JsonObject | undefined,
	more: SharedV3ProviderMetadata | undefined,
): JsonObject | undefined {
	if (more === undefined) return into;
	const merged: JsonObject = { ...into };
	for (const [provider, values] of Object.entries(more)) {
		const prior = merged[provider];
		merged[provider] = {
			...(typeof prior === "object" && prior !== null && !Array.isArray(prior) ? prior : {}),
			...values,
		} as JsonObject;
	}
	return merged;
}

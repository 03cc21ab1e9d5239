import type { JsonObject, ModelMessage, Usage } from "../messages/index.js";
import type { ModelFailure } from "./failure.js";

/** How much the model may reason before it answers; `off` for none. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** A tool as the model sees it. */
export interface ToolSpec {
	name: string;
	description: string;
	/** JSON Schema of the arguments object. */
	inputSchema: JsonObject;
}

/** Why a request is made; adapters may tune caching or logging by it, never the wire prefix. */
export type RequestPurpose = "turn" | "compaction" | "title";

/**
 * One model request. Contract for adapters: treat it as read-only and do not keep it after the
 * stream ends (the engine reuses the message objects).
 */
export interface ModelRequest {
	system?: string;
	messages: readonly ModelMessage[];
	tools: readonly ToolSpec[];
	thinkingLevel?: ThinkingLevel;
	purpose: RequestPurpose;
}

/** Why the model stopped a response that ended well. */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "other";

/** How a model request ended: ok with its finish reason, a classified failure, or aborted. */
export type ModelOutcome =
	| { status: "ok"; finishReason: FinishReason }
	| { status: "error"; failure: ModelFailure }
	| { status: "aborted" };

/**
 * What a model stream yields. Deltas come first; the complete item follows its deltas (a complete
 * item may come without deltas). The last event is always exactly one `outcome`.
 */
export type ModelEvent =
	| { type: "text_delta"; delta: string }
	| { type: "text"; text: string }
	| { type: "reasoning_delta"; delta: string }
	| { type: "reasoning"; text: string; providerMetadata?: JsonObject }
	| { type: "tool_call_delta"; callId: string; name: string; delta: string }
	| { type: "tool_call"; callId: string; name: string; arguments: string; providerMetadata?: JsonObject }
	| { type: "usage"; usage: Usage }
	| { type: "outcome"; outcome: ModelOutcome };

/**
 * A model behind a narrow interface: a request in, normalized events out, ending in an outcome.
 *
 * Contract: `streamGenerate` must not throw and its iterator must not reject for request, network
 * or provider failures: those are encoded as a final `outcome` event of status "error", already
 * classified. When `signal` fires the stream ends promptly (with an "aborted" outcome or none).
 * The engine still classifies anything thrown, as a defence, but that is a bug in the adapter.
 */
export interface ModelAdapter {
	/** For Traces and logs: "provider:model". */
	readonly id: string;
	/** False for a model that cannot write a compaction summary (e.g. a fixed demo script). */
	readonly supportsCompaction?: boolean;
	streamGenerate(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}

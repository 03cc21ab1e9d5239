import type { IncomingHttpHeaders } from "node:http";
import type { JsonValue } from "../../messages/omni-message.js";

/**
 * The wire API a request was made to, chosen by its path:
 * - `openai-chat`: `POST /v1/chat/completions` or `/chat/completions`
 * - `openai-responses`: `POST /v1/responses` or `/responses`
 * - `anthropic`: `POST /v1/messages` or `/messages`
 * - `google`: any path containing `:streamGenerateContent` (Gemini API and Vertex AI). Only
 *   `replayRecorded` replies can answer it; a scripted reply gets a 500 saying so.
 */
export type ProviderApi = "openai-chat" | "openai-responses" | "anthropic" | "google";

/** A tool call the fake model makes. */
export interface FakeToolCall {
	/** The provider's call id; a deterministic fake id in that API's style when absent. */
	id?: string;
	name: string;
	/** JSON text sent as is, or an object to serialize. */
	arguments: string | Record<string, unknown>;
	/** How many argument deltas to split the JSON text into (default 1). */
	chunks?: number;
}

/**
 * Token counts, in the normalised sense the AI SDK reports them, so that one reply gives the
 * same `usage` through every API:
 * - `input`: all prompt tokens, cache reads and writes included (default 10). On the Anthropic
 *   wire `input_tokens` is `input - cacheRead - cacheWrite` (never below 0).
 * - `output`: all generated tokens, reasoning included (default 5).
 * - `cacheRead` (default 0), `cacheWrite` (Anthropic always; OpenAI only when set, as
 *   `cache_write_tokens`), `reasoning` (OpenAI always; Anthropic only when set, as
 *   `output_tokens_details.thinking_tokens`).
 */
export interface FakeUsage {
	input?: number;
	output?: number;
	cacheRead?: number;
	cacheWrite?: number;
	reasoning?: number;
}

/**
 * A failure injected into one reply. Event counts are SSE events as written, from the first one
 * (`response.created`, `message_start`, the first chat chunk); an injected event (`malformed`,
 * `stream-error`) comes before the finish at the latest.
 * - `drop`: the socket is destroyed after `afterEvents` events (no terminating chunk).
 * - `stall`: headers and `afterEvents` events, then silence; the socket stays open until the client
 *   goes away or the server closes.
 * - `status`: no stream; an HTTP error in the API's own error JSON. `code` is OpenAI's
 *   `error.code` or Anthropic's `error.type`; `retryAfterSeconds` adds a `retry-after` header.
 * - `malformed`: after `afterEvents` events, one event whose `data:` line is invalid JSON (the
 *   next payload cut short), then the stream ends cleanly.
 * - `no-finish`: the stream ends cleanly just before its finish: without the finish chunk, usage
 *   chunk and `[DONE]` (chat), `response.completed` (Responses), `message_delta` and
 *   `message_stop` (Anthropic).
 * - `stream-error`: after `afterEvents` events, the API's in-stream error (chat: an `{error}`
 *   chunk; Responses: `error` then `response.failed`; Anthropic: `event: error`), then the end.
 *   `code` as for `status`; by default a server error on OpenAI, `overloaded_error` on Anthropic.
 */
export type Fault =
	| { kind: "drop"; afterEvents: number }
	| { kind: "stall"; afterEvents: number }
	| { kind: "status"; status: number; retryAfterSeconds?: number; code?: string; message?: string }
	| { kind: "malformed"; afterEvents: number }
	| { kind: "no-finish" }
	| { kind: "stream-error"; afterEvents: number; code?: string; message?: string };

/**
 * What the fake model answers to one request. Each present part becomes one output item, in this
 * order: reasoning, text, tool calls. A string is one delta, an array one delta per element (an
 * empty array makes the item with no deltas). The finish is "tool calls" when `toolCalls` is non-empty,
 * else "stop".
 */
export interface FakeReply {
	text?: string | string[];
	/** Anthropic thinking, Responses reasoning summary, chat `reasoning_content`. */
	reasoning?: string | string[];
	/** Anthropic `signature_delta` closing the thinking block (a fake one when absent). */
	reasoningSignature?: string;
	toolCalls?: FakeToolCall[];
	usage?: FakeUsage;
	/** A wait between SSE events, in ms (default 0: events are still separate writes). */
	chunkDelayMs?: number;
	fault?: Fault;
}

/** A request as the server received it. */
export interface RecordedProviderRequest {
	api: ProviderApi;
	/** The path without the query string. */
	path: string;
	headers: IncomingHttpHeaders;
	/** The parsed JSON body; `null` when the body was not JSON (the request got a 400). */
	body: JsonValue;
	rawBody: string;
	/**
	 * Call ids that break tool-call pairing in this API's request shape (see `findUnpairedCalls`),
	 * each once, in order of first appearance. Always empty for `google`.
	 */
	unpairedToolCalls: string[];
}

/** A queued reply: fixed, or computed from the request (and its 0-based index) when it arrives. */
export type FakeReplySource = FakeReply | ((request: RecordedProviderRequest, index: number) => FakeReply);

/** How `replayRecorded` frames each payload line; see the recorded-streams README. */
export type ReplayConvention = "event-named" | "data-only+DONE" | "data-only";

export interface ReplayOptions {
	/**
	 * Write the body at arbitrary byte offsets instead of one write per event: pseudo-random
	 * pieces of 1 to 24 bytes, with a cut inside every multi-byte UTF-8 character.
	 */
	splitWrites?: boolean;
	/** Seed for the split offsets (default 1), so a failing split can be reproduced. */
	seed?: number;
	/** A wait between writes, in ms (default 0). */
	chunkDelayMs?: number;
	/** The SSE line ending; the spec allows "\r\n" too, and a robust parser must take it (default "\n"). */
	lineEnding?: "\n" | "\r\n";
}

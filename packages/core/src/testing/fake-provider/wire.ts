import type { FakeReply, Fault, RecordedProviderRequest } from "./types.js";

/** One Server-Sent Event. `event` is the `event:` line, absent for data-only streams. */
export interface SseEvent {
	event?: string;
	data: string;
}

export function encodeEvent(event: SseEvent): string {
	return `${event.event === undefined ? "" : `event: ${event.event}\n`}data: ${event.data}\n\n`;
}

/** An event whose payload is a JSON object with a top-level `type` (Responses, Anthropic). */
export function typedEvent(payload: { type: string } & Record<string, unknown>): SseEvent {
	return { event: payload.type, data: JSON.stringify(payload) };
}

/**
 * A scripted reply rendered for one API, before any fault is applied.
 * `finishStart` is the index of the first event that carries the finish; everything from it on is
 * what `no-finish` leaves out.
 */
export interface RenderedStream {
	events: SseEvent[];
	finishStart: number;
	/** The API's in-stream error, for an error sent after `sent` events. */
	streamError(sent: number, code: string | undefined, message: string | undefined): SseEvent[];
}

export interface ErrorResponse {
	status: number;
	headers: Record<string, string>;
	body: unknown;
}

/** What identifies one exchange, for ids that are unique per server and stable across runs. */
export interface RenderContext {
	request: RecordedProviderRequest;
	/** 1-based number of the request on this server. */
	number: number;
	/** The request body's `model`, or "fake-model". */
	model: string;
}

/** One API's wire format: its stream, its error bodies and its own response headers. */
export interface WireFormat {
	render(reply: FakeReply, context: RenderContext): RenderedStream;
	/** An HTTP error in the API's error JSON (a `status` fault, an empty queue, a bad request). */
	errorResponse(fault: Extract<Fault, { kind: "status" }>, context: RenderContext): ErrorResponse;
	/** Headers the real API sends with every response (request ids). */
	headers(context: RenderContext): Record<string, string>;
}

import { fakeId } from "../reply.js";
import type { Fault } from "../types.js";
import type { ErrorResponse, RenderContext, RenderedStream, WireFormat } from "../wire.js";

/** gRPC status names the Gemini API puts in `error.status`, by HTTP status. */
const STATUS_NAMES: Record<number, string> = {
	400: "INVALID_ARGUMENT",
	401: "UNAUTHENTICATED",
	403: "PERMISSION_DENIED",
	404: "NOT_FOUND",
	429: "RESOURCE_EXHAUSTED",
	500: "INTERNAL",
	503: "UNAVAILABLE",
	504: "DEADLINE_EXCEEDED",
};

function render(): RenderedStream {
	throw new Error("scripted streams are not supported for the Gemini API; use replayRecorded");
}

function errorResponse(fault: Extract<Fault, { kind: "status" }>, context: RenderContext): ErrorResponse {
	const headers: Record<string, string> = { "x-request-id": fakeId("req_", context.number) };
	if (fault.retryAfterSeconds !== undefined) headers["retry-after"] = String(fault.retryAfterSeconds);
	const status = fault.code ?? STATUS_NAMES[fault.status] ?? (fault.status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");
	return {
		status: fault.status,
		headers,
		body: {
			error: { code: fault.status, message: fault.message ?? `Request failed with status ${fault.status}.`, status },
		},
	};
}

/**
 * The Gemini API (and Vertex AI) only as far as replays need: recorded streams are sent verbatim,
 * and `status` faults and server-side failures answer in its error shape. Scripted streams throw.
 */
export const googleWire: WireFormat = {
	render,
	errorResponse,
	headers: () => ({}),
};

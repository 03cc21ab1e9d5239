import type { Fault } from "./types.js";
import { encodeEvent, type RenderedStream, type SseEvent } from "./wire.js";

/** What to write for one reply, one element per write, and how the response ends after it. */
export interface StreamPlan {
	writes: Buffer[];
	/** `end`: the body ends cleanly. `destroy`: the socket is torn down. `stall`: nothing more. */
	ending: "end" | "destroy" | "stall";
}

type StreamFault = Exclude<Fault, { kind: "status" }>;

function toWrites(events: SseEvent[]): Buffer[] {
	return events.map((event) => Buffer.from(encodeEvent(event), "utf8"));
}

/** The event a `malformed` fault sends: the payload that was due, cut short, so never valid JSON. */
function malformed(due: SseEvent | undefined): SseEvent {
	const chars = Array.from(due?.data ?? '{"type":"malformed"}');
	return { ...due, data: chars.slice(0, Math.max(1, Math.floor(chars.length / 2))).join("") };
}

/**
 * Applies a stream fault to a rendered reply. Event counts are clamped to the stream; the faults
 * that inject an event (`malformed`, `stream-error`) inject it before the finish at the latest.
 */
export function planStream(rendered: RenderedStream, fault: StreamFault | undefined): StreamPlan {
	const { events, finishStart } = rendered;
	if (fault === undefined) return { writes: toWrites(events), ending: "end" };
	switch (fault.kind) {
		case "drop":
			return { writes: toWrites(events.slice(0, Math.max(0, fault.afterEvents))), ending: "destroy" };
		case "stall":
			return { writes: toWrites(events.slice(0, Math.max(0, fault.afterEvents))), ending: "stall" };
		case "no-finish":
			return { writes: toWrites(events.slice(0, finishStart)), ending: "end" };
		case "malformed": {
			const sent = Math.max(0, Math.min(fault.afterEvents, finishStart));
			return { writes: toWrites([...events.slice(0, sent), malformed(events[sent])]), ending: "end" };
		}
		case "stream-error": {
			const sent = Math.max(0, Math.min(fault.afterEvents, finishStart));
			const error = rendered.streamError(sent, fault.code, fault.message);
			return { writes: toWrites([...events.slice(0, sent), ...error]), ending: "end" };
		}
	}
}

import type { ModelFailure } from "./failure.js";
import type { ModelAdapter, ModelEvent, ModelRequest } from "./model-adapter.js";

export interface StreamTimeouts {
	/** From the request's start to its first event. */
	firstByteMs: number;
	/** Between two events. */
	idleMs: number;
	/** The whole request. */
	requestMs: number;
}

/**
 * Puts a time limit on every wait of a model stream. A stall becomes a `timeout` failure: the
 * inner request is aborted and the stream ends with that outcome, so the engine reconnects.
 *
 * One watchdog timer per request, re-armed when it fires, rather than a timer per event: the
 * per-event cost is one clock read.
 */
export class TimedModel implements ModelAdapter {
	readonly id: string;
	readonly supportsCompaction: boolean | undefined;

	constructor(
		readonly inner: ModelAdapter,
		private readonly limits: StreamTimeouts,
	) {
		this.id = inner.id;
		this.supportsCompaction = inner.supportsCompaction;
	}

	async *streamGenerate(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent, void, undefined> {
		const controller = new AbortController();
		const onAbort = () => controller.abort(signal.reason);
		if (signal.aborted) onAbort();
		else signal.addEventListener("abort", onAbort, { once: true });

		const started = Date.now();
		let lastEvent = started;
		let seenFirst = false;
		let timedOut: ModelFailure | undefined;
		let timer: ReturnType<typeof setTimeout> | undefined;
		const check = () => {
			const now = Date.now();
			const overdue = this.overdue(now, started, lastEvent, seenFirst);
			if (overdue !== undefined) {
				timedOut = overdue;
				controller.abort(new Error(overdue.message));
				return;
			}
			timer = setTimeout(check, this.nextCheckIn(now, started, lastEvent, seenFirst));
		};
		timer = setTimeout(check, this.nextCheckIn(started, started, lastEvent, seenFirst));

		try {
			for await (const event of this.inner.streamGenerate(request, controller.signal)) {
				lastEvent = Date.now();
				if (!seenFirst) {
					// From the first event on, the idle limit applies: re-arm once for it.
					seenFirst = true;
					clearTimeout(timer);
					timer = setTimeout(check, this.nextCheckIn(lastEvent, started, lastEvent, seenFirst));
				}
				if (timedOut !== undefined) break;
				yield event;
				if (event.type === "outcome") return;
			}
		} catch (error) {
			if (timedOut === undefined) throw error;
		} finally {
			clearTimeout(timer);
			signal.removeEventListener("abort", onAbort);
		}
		if (timedOut !== undefined) yield { type: "outcome", outcome: { status: "error", failure: timedOut } };
	}

	private overdue(now: number, started: number, lastEvent: number, seenFirst: boolean): ModelFailure | undefined {
		const { firstByteMs, idleMs, requestMs } = this.limits;
		if (now - started >= requestMs)
			return { class: "timeout", message: `the request took longer than ${requestMs} ms` };
		if (!seenFirst && now - started >= firstByteMs)
			return { class: "timeout", message: `no first byte within ${firstByteMs} ms` };
		if (seenFirst && now - lastEvent >= idleMs)
			return { class: "timeout", message: `the stream stalled: no event for ${idleMs} ms` };
		return undefined;
	}

	private nextCheckIn(now: number, started: number, lastEvent: number, seenFirst: boolean): number {
		const { firstByteMs, idleMs, requestMs } = this.limits;
		const untilRequest = started + requestMs - now;
		// Each check is scheduled at the exact moment the current limit would be passed.
		const untilGap = seenFirst ? lastEvent + idleMs - now : started + firstByteMs - now;
		return Math.max(1, Math.min(untilRequest, untilGap));
	}
}

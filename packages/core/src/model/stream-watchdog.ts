import type { ModelFailure } from "./failure.js";

export interface StreamTimeouts {
	/** From the request's start to its first event. */
	firstByteMs: number;
	/** Between two events. */
	idleMs: number;
	/** The whole request. */
	requestMs: number;
}

/**
 * The time limits of one model request: no first event in time, too long a gap between events,
 * or too long a request. One timer, scheduled for the moment the current limit would pass and
 * re-armed when it fires; the per-event cost is one clock read, and a request usually needs one timer.
 */
export class StreamWatchdog {
	private readonly started = Date.now();
	private lastEvent = this.started;
	private seenFirst = false;
	private timer: ReturnType<typeof setTimeout> | undefined;
	private stopped = false;

	constructor(
		private readonly limits: StreamTimeouts,
		/** Called once, when a limit passes. */
		private readonly onOverdue: (failure: ModelFailure) => void,
	) {
		this.arm(this.started);
	}

	/** An event arrived at `at` (ms since the epoch). No timer work here: the next check reads it. */
	event(at: number = Date.now()): void {
		this.lastEvent = at;
		this.seenFirst = true;
	}

	stop(): void {
		this.stopped = true;
		clearTimeout(this.timer);
	}

	private arm(now: number): void {
		clearTimeout(this.timer);
		if (!this.stopped) this.timer = setTimeout(() => this.check(), this.nextCheckIn(now));
	}

	private check(): void {
		const now = Date.now();
		const overdue = this.overdue(now);
		if (overdue === undefined) {
			this.arm(now);
			return;
		}
		this.stop();
		this.onOverdue(overdue);
	}

	private overdue(now: number): ModelFailure | undefined {
		const { firstByteMs, idleMs, requestMs } = this.limits;
		if (now - this.started >= requestMs)
			return { class: "timeout", message: `the request took longer than ${requestMs} ms` };
		if (!this.seenFirst && now - this.started >= firstByteMs)
			return { class: "timeout", message: `no first byte within ${firstByteMs} ms` };
		if (this.seenFirst && now - this.lastEvent >= idleMs)
			return { class: "timeout", message: `the stream stalled: no event for ${idleMs} ms` };
		return undefined;
	}

	/**
	 * The moment the current limit would pass. Before the first event: the first-byte limit, but
	 * at least every idle interval, since once events come the idle limit applies from the last
	 * one; a check that finds nothing overdue re-arms for the exact moment.
	 */
	private nextCheckIn(now: number): number {
		const { firstByteMs, idleMs, requestMs } = this.limits;
		const untilRequest = this.started + requestMs - now;
		const untilGap = this.seenFirst
			? this.lastEvent + idleMs - now
			: Math.min(this.started + firstByteMs - now, idleMs);
		return Math.max(1, Math.min(untilRequest, untilGap));
	}
}

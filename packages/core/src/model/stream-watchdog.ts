import { Deadlines } from "../tools/deadlines.js";
import type { ModelFailure } from "./failure.js";

export interface StreamTimeouts {
	/** From the request's start to its first event. */
	firstByteMs: number;
	/** Between two events. */
	idleMs: number;
	/** The whole request. */
	requestMs: number;
}

/** A timer for the watchdogs of one Session's requests, one after another: on the clock they read. */
export function requestTimer(): Deadlines {
	// The global read at each call, so a clock replaced later (fake timers in a test) is the one read.
	return new Deadlines(() => Date.now());
}

/**
 * The time limits of one model request: no first event in time, too long a gap between events,
 * or too long a request. One check, scheduled for the moment the current limit would pass and
 * re-armed when it passes; the per-event cost is one clock read. The checks go on a timer the
 * Session's requests share (`requestTimer`): a timer made and cleared per request was ~4% of a
 * short turn (bench W2).
 */
export class StreamWatchdog {
	private readonly started = Date.now();
	private lastEvent = this.started;
	private seenFirst = false;
	private cancel: (() => void) | undefined;
	private stopped = false;
	private readonly timer: Deadlines;
	/** Whether `timer` is this watchdog's alone (none was given): stopped with it. */
	private readonly ownTimer: boolean;

	constructor(
		private readonly limits: StreamTimeouts,
		/** Called once, when a limit passes. */
		private readonly onOverdue: (failure: ModelFailure) => void,
		/** From `requestTimer`, shared by requests made one after another; a timer of its own when omitted. */
		timer?: Deadlines,
	) {
		this.ownTimer = timer === undefined;
		this.timer = timer ?? requestTimer();
		this.arm(this.started);
	}

	/** An event arrived at `at` (ms since the epoch). No timer work here: the next check reads it. */
	event(at: number = Date.now()): void {
		this.lastEvent = at;
		this.seenFirst = true;
	}

	stop(): void {
		this.stopped = true;
		this.cancel?.();
		if (this.ownTimer) this.timer.clear();
	}

	private arm(now: number): void {
		this.cancel?.();
		if (!this.stopped) this.cancel = this.timer.add(now + this.nextCheckIn(now), () => this.check());
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

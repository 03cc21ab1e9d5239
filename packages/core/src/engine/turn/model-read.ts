import { failureFromUnknown, type ModelFailure } from "../../model/failure.js";
import type { ModelAdapter, ModelEvent, ModelRequest } from "../../model/model-adapter.js";
import { type StreamTimeouts, StreamWatchdog } from "../../model/stream-watchdog.js";
import type { Deadlines } from "../../tools/deadlines.js";
import { ABORTED, type Aborted, type Interruptible } from "../task/interruptible.js";

/** How one attempt of a request ended. */
export type AttemptEnd = { kind: "ok" } | { kind: "failed"; failure: ModelFailure } | { kind: "aborted" };

/** How long a model gets to answer its aborted signal after a time limit passed, before the Task ends without it. */
export const UNRESPONSIVE_GRACE_MS = 250;

/**
 * One attempt's model stream, read under the Task's signal and the request's time limits.
 *
 * Every streamed delta passes here, so a read is the model's own promise, with nothing wrapped
 * around it. An abort does not need to wake it: the Task ends from the abort itself (see
 * `createTaskContext`), and the reader checks `interruption` after each await. A time limit
 * aborts the model's own signal, which a conforming adapter answers at once.
 */
export class ModelRead {
	private readonly controller = new AbortController();
	private readonly stream: AsyncIterator<ModelEvent>;
	private readonly watchdog: StreamWatchdog;
	private readonly stopWatchingTask: () => void;
	/** Why the read stopped early, if it did: the Task was aborted, or a time limit passed. */
	interruption: Aborted | { timedOut: ModelFailure } | undefined;
	/** Reads that settled, so a timed-out model that never answers again can be told apart. */
	private settledReads = 0;
	private graceTimer: ReturnType<typeof setTimeout> | undefined;

	/**
	 * @param onUnresponsive called when a time limit passed and the model did not answer its
	 * aborted signal within UNRESPONSIVE_GRACE_MS: nothing will wake the read, so the Task must end.
	 */
	constructor(
		model: ModelAdapter,
		request: ModelRequest,
		interrupt: Interruptible,
		limits: StreamTimeouts,
		/** The Session's `requestTimer`: its requests come one after another. */
		timer: Deadlines,
		private readonly onUnresponsive: (failure: ModelFailure) => void,
	) {
		this.stopWatchingTask = interrupt.onAbort(() => this.interrupt(ABORTED));
		this.watchdog = new StreamWatchdog(limits, (failure) => this.timeOut(failure), timer);
		if (interrupt.signal.aborted) this.interrupt(ABORTED);
		let stream: AsyncIterator<ModelEvent>;
		try {
			stream = model.streamGenerate(request, this.controller.signal)[Symbol.asyncIterator]();
		} catch (error) {
			stream = outcomeOnly({ status: "error", failure: failureFromUnknown(error) });
		}
		this.stream = stream;
	}

	next(): Promise<IteratorResult<ModelEvent>> {
		return this.stream.next();
	}

	/** When the last event arrived (one clock read per event, shared by the watchdog and the message made of it). */
	lastEventAt = 0;

	/**
	 * How a settled read ends the attempt, or undefined for an ordinary event to process. Checked
	 * after every read, before anything is done with the event. The hot path: no allocation.
	 */
	endOf(next: IteratorResult<ModelEvent>): AttemptEnd | undefined {
		this.settledReads++;
		const early = this.interruptedEnd();
		if (early !== undefined) return early;
		const at = Date.now();
		this.lastEventAt = at;
		this.watchdog.event(at);
		if (next.done) return NO_OUTCOME;
		const event = next.value;
		if (event.type !== "outcome") return undefined;
		const { outcome } = event;
		if (outcome.status === "ok") return OK_END;
		if (outcome.status === "aborted") return FOREIGN_ABORT;
		return { kind: "failed", failure: outcome.failure };
	}

	/** How a read that threw ends the attempt. */
	failedRead(error: unknown): AttemptEnd {
		this.settledReads++;
		return this.interruptedEnd() ?? { kind: "failed", failure: failureFromUnknown(error) };
	}

	private interruptedEnd(): AttemptEnd | undefined {
		const why = this.interruption;
		if (why === undefined) return undefined;
		return why === ABORTED ? ABORTED_END : { kind: "failed", failure: why.timedOut };
	}

	/** Stops the request and the watchdog; the stream is not read again. */
	close(): void {
		this.watchdog.stop();
		clearTimeout(this.graceTimer);
		this.stopWatchingTask();
		this.stream.return?.().catch(() => {});
	}

	private timeOut(failure: ModelFailure): void {
		this.interrupt({ timedOut: failure });
		const settledBefore = this.settledReads;
		this.graceTimer = setTimeout(() => {
			if (this.settledReads === settledBefore) this.onUnresponsive(failure);
		}, UNRESPONSIVE_GRACE_MS);
	}

	private interrupt(why: Aborted | { timedOut: ModelFailure }): void {
		if (this.interruption !== undefined) return;
		this.interruption = why;
		this.watchdog?.stop();
		this.controller.abort(why === ABORTED ? new Error("the Task was aborted") : new Error(why.timedOut.message));
	}
}

/** A streamed event to process, or how the attempt ended. */
export type ReadResult = { end: AttemptEnd } | { event: Exclude<ModelEvent, { type: "outcome" }>; at: number };

/** Reads the next event (the compaction's reader; a turn's stream reads inline, see `streaming`). */
export async function readEvent(read: ModelRead): Promise<ReadResult> {
	let next: IteratorResult<ModelEvent>;
	try {
		next = await read.next();
	} catch (error) {
		return { end: read.failedRead(error) };
	}
	const end = read.endOf(next);
	return end === undefined
		? { event: next.value as Exclude<ModelEvent, { type: "outcome" }>, at: read.lastEventAt }
		: { end };
}

const ABORTED_END: AttemptEnd = { kind: "aborted" };
const OK_END: AttemptEnd = { kind: "ok" };
const NO_OUTCOME: AttemptEnd = {
	kind: "failed",
	failure: { class: "malformed", message: "the model stream ended without an outcome" },
};
// An adapter that ends "aborted" without our signal was stopped by something else: a transient failure.
const FOREIGN_ABORT: AttemptEnd = {
	kind: "failed",
	failure: { class: "timeout", message: "the model stream was aborted" },
};

async function* outcomeOnly(
	outcome: Extract<ModelEvent, { type: "outcome" }>["outcome"],
): AsyncGenerator<ModelEvent, void, undefined> {
	yield { type: "outcome", outcome };
}

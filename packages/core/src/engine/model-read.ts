import { failureFromUnknown, type ModelFailure } from "../model/failure.js";
import type { ModelAdapter, ModelEvent, ModelRequest } from "../model/model-adapter.js";
import { type StreamTimeouts, StreamWatchdog } from "../model/stream-watchdog.js";
import { ABORTED, type Aborted, type Interruptible } from "./interruptible.js";

/** How one attempt of a request ended. */
export type AttemptEnd = { kind: "ok" } | { kind: "failed"; failure: ModelFailure } | { kind: "aborted" };

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

	constructor(model: ModelAdapter, request: ModelRequest, interrupt: Interruptible, limits: StreamTimeouts) {
		this.stopWatchingTask = interrupt.onAbort(() => this.interrupt(ABORTED));
		if (interrupt.signal.aborted) this.interrupt(ABORTED);
		this.watchdog = new StreamWatchdog(limits, (failure) => this.interrupt({ timedOut: failure }));
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

	/** An event arrived (feeds the idle limit). */
	event(): void {
		this.watchdog.event();
	}

	/** Stops the request and the watchdog; the stream is not read again. */
	close(): void {
		this.watchdog.stop();
		this.stopWatchingTask();
		this.stream.return?.().catch(() => {});
	}

	private interrupt(why: Aborted | { timedOut: ModelFailure }): void {
		if (this.interruption !== undefined) return;
		this.interruption = why;
		this.watchdog?.stop();
		this.controller.abort(why === ABORTED ? new Error("the Task was aborted") : new Error(why.timedOut.message));
	}
}

/**
 * How a read ends the attempt, or undefined for an ordinary event to process. Checked after
 * every read, before anything is done with the event.
 */
export async function readEvent(
	read: ModelRead,
): Promise<{ end: AttemptEnd } | { event: Exclude<ModelEvent, { type: "outcome" }> }> {
	let next: IteratorResult<ModelEvent>;
	try {
		next = await read.next();
	} catch (error) {
		return ended(read) ?? { end: { kind: "failed", failure: failureFromUnknown(error) } };
	}
	const early = ended(read);
	if (early !== undefined) return early;
	read.event();
	if (next.done)
		return {
			end: { kind: "failed", failure: { class: "malformed", message: "the model stream ended without an outcome" } },
		};
	const event = next.value;
	if (event.type !== "outcome") return { event };
	const { outcome } = event;
	if (outcome.status === "ok") return { end: { kind: "ok" } };
	// An adapter that ends "aborted" without our signal was stopped by something else: a transient failure.
	if (outcome.status === "aborted")
		return { end: { kind: "failed", failure: { class: "timeout", message: "the model stream was aborted" } } };
	return { end: { kind: "failed", failure: outcome.failure } };
}

function ended(read: ModelRead): { end: AttemptEnd } | undefined {
	const why = read.interruption;
	if (why === undefined) return undefined;
	return why === ABORTED ? { end: { kind: "aborted" } } : { end: { kind: "failed", failure: why.timedOut } };
}

async function* outcomeOnly(
	outcome: Extract<ModelEvent, { type: "outcome" }>["outcome"],
): AsyncGenerator<ModelEvent, void, undefined> {
	yield { type: "outcome", outcome };
}

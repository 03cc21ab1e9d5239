import { failureFromUnknown, type ModelFailure } from "../model/failure.js";
import type { ModelAdapter, ModelEvent, ModelRequest } from "../model/model-adapter.js";
import { type StreamTimeouts, StreamWatchdog } from "../model/stream-watchdog.js";
import { ABORTED, type Aborted, type Interruptible } from "./interruptible.js";

/** How one attempt of a request ended. */
export type AttemptEnd = { kind: "ok" } | { kind: "failed"; failure: ModelFailure } | { kind: "aborted" };

/** What reading the next event gives: the event, or why there is none. */
export type ReadResult = IteratorResult<ModelEvent> | Aborted | { timedOut: ModelFailure } | { threw: ModelFailure };

/**
 * One attempt's model stream, read under the Task's signal and the request's time limits.
 *
 * Every streamed delta passes here, so this is the one place that makes a read interruptible:
 * one promise per event, its resolver in a field (no listener, no set), settled by the event,
 * by the Task's abort, or by the watchdog — whichever comes first. The model gets a signal of
 * its own that fires on either of the latter, so it stops its request too.
 */
export class ModelRead {
	private readonly controller = new AbortController();
	private readonly stream: AsyncIterator<ModelEvent>;
	private readonly watchdog: StreamWatchdog;
	private readonly stopWatchingTask: () => void;
	private waiter: ((result: ReadResult) => void) | undefined;
	private interruption: Aborted | { timedOut: ModelFailure } | undefined;

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

	next(): Promise<ReadResult> {
		if (this.interruption !== undefined) return Promise.resolve(this.interruption);
		return new Promise<ReadResult>((resolve) => {
			this.waiter = resolve;
			this.stream.next().then(this.onResult, this.onError);
		});
	}

	/** Stops the request and the watchdog; the stream is not read again. */
	close(): void {
		this.watchdog.stop();
		this.stopWatchingTask();
		this.stream.return?.().catch(() => {});
	}

	private readonly onResult = (result: IteratorResult<ModelEvent>): void => {
		const waiter = this.waiter;
		if (waiter === undefined) return;
		this.waiter = undefined;
		this.watchdog.event();
		waiter(result);
	};

	private readonly onError = (error: unknown): void => {
		const waiter = this.waiter;
		if (waiter === undefined) return;
		this.waiter = undefined;
		waiter({ threw: failureFromUnknown(error) });
	};

	private interrupt(why: Aborted | { timedOut: ModelFailure }): void {
		if (this.interruption !== undefined) return;
		this.interruption = why;
		this.watchdog?.stop();
		this.controller.abort(why === ABORTED ? new Error("the Task was aborted") : new Error(why.timedOut.message));
		const waiter = this.waiter;
		this.waiter = undefined;
		waiter?.(why);
	}
}

async function* outcomeOnly(
	outcome: Extract<ModelEvent, { type: "outcome" }>["outcome"],
): AsyncGenerator<ModelEvent, void, undefined> {
	yield { type: "outcome", outcome };
}

/** How a read ends the attempt, or undefined for an ordinary event. */
export function attemptEnd(next: Exclude<ReadResult, typeof ABORTED>): AttemptEnd | undefined {
	if ("timedOut" in next) return { kind: "failed", failure: next.timedOut };
	if ("threw" in next) return { kind: "failed", failure: next.threw };
	if (next.done)
		return { kind: "failed", failure: { class: "malformed", message: "the model stream ended without an outcome" } };
	const event = next.value;
	if (event.type !== "outcome") return undefined;
	const { outcome } = event;
	if (outcome.status === "ok") return { kind: "ok" };
	// An adapter that ends "aborted" without our signal was stopped by something else: a transient failure.
	if (outcome.status === "aborted")
		return { kind: "failed", failure: { class: "timeout", message: "the model stream was aborted" } };
	return { kind: "failed", failure: outcome.failure };
}

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

	streamGenerate(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
		const stream = new TimedStream(this.inner, request, signal, this.limits);
		return { [Symbol.asyncIterator]: () => stream };
	}
}

/**
 * One timed request. A hand-written iterator rather than a generator, since every streamed delta
 * passes through it: the per-event cost is one `then` and one clock read. One watchdog timer per
 * request, scheduled for the moment the current limit would pass, re-armed when it fires.
 */
class TimedStream implements AsyncIterator<ModelEvent> {
	private readonly controller = new AbortController();
	private readonly inner: AsyncIterator<ModelEvent>;
	private readonly started = Date.now();
	private lastEvent = this.started;
	private seenFirst = false;
	private timedOut: ModelFailure | undefined;
	private timer: ReturnType<typeof setTimeout> | undefined;
	private state: "open" | "ending" | "ended" = "open";
	private readonly onAbort = () => this.controller.abort(this.signal.reason);

	constructor(
		model: ModelAdapter,
		request: ModelRequest,
		private readonly signal: AbortSignal,
		private readonly limits: StreamTimeouts,
	) {
		this.inner = model.streamGenerate(request, this.controller.signal)[Symbol.asyncIterator]();
		if (signal.aborted) this.onAbort();
		else signal.addEventListener("abort", this.onAbort, { once: true });
		this.arm(this.started);
	}

	next(): Promise<IteratorResult<ModelEvent>> {
		if (this.state === "ended") return Promise.resolve({ value: undefined, done: true });
		if (this.state === "ending") return Promise.resolve(this.timeoutOutcome());
		return this.inner.next().then(
			(result) => this.passed(result),
			(error: unknown) => {
				if (this.timedOut !== undefined) return this.timeoutOutcome();
				this.end();
				throw error;
			},
		);
	}

	return(): Promise<IteratorResult<ModelEvent>> {
		this.end();
		return this.inner.return?.() ?? Promise.resolve({ value: undefined, done: true });
	}

	private passed(result: IteratorResult<ModelEvent>): IteratorResult<ModelEvent> {
		if (this.timedOut !== undefined) return this.timeoutOutcome();
		if (result.done) {
			this.end();
			return result;
		}
		this.lastEvent = Date.now();
		if (!this.seenFirst) {
			// From the first event on, the idle limit applies: re-arm once for it.
			this.seenFirst = true;
			this.arm(this.lastEvent);
		}
		if (result.value.type === "outcome") this.end();
		return result;
	}

	/** The timeout outcome, once; the stream ends after it. */
	private timeoutOutcome(): IteratorResult<ModelEvent> {
		const failure = this.timedOut as ModelFailure;
		const ended = this.state === "ended";
		this.end();
		return ended ? { value: undefined, done: true } : { value: { type: "outcome", outcome: { status: "error", failure } }, done: false };
	}

	private end(): void {
		if (this.state === "ended") return;
		this.state = "ended";
		clearTimeout(this.timer);
		this.signal.removeEventListener("abort", this.onAbort);
	}

	private arm(now: number): void {
		clearTimeout(this.timer);
		this.timer = setTimeout(() => this.check(), this.nextCheckIn(now));
	}

	private check(): void {
		const now = Date.now();
		const overdue = this.overdue(now);
		if (overdue === undefined) {
			this.arm(now);
			return;
		}
		this.timedOut = overdue;
		this.state = "ending";
		this.controller.abort(new Error(overdue.message));
	}

	private overdue(now: number): ModelFailure | undefined {
		const { firstByteMs, idleMs, requestMs } = this.limits;
		if (now - this.started >= requestMs) return { class: "timeout", message: `the request took longer than ${requestMs} ms` };
		if (!this.seenFirst && now - this.started >= firstByteMs) return { class: "timeout", message: `no first byte within ${firstByteMs} ms` };
		if (this.seenFirst && now - this.lastEvent >= idleMs) return { class: "timeout", message: `the stream stalled: no event for ${idleMs} ms` };
		return undefined;
	}

	/** Each check is scheduled at the exact moment the current limit would be passed. */
	private nextCheckIn(now: number): number {
		const { firstByteMs, idleMs, requestMs } = this.limits;
		const untilRequest = this.started + requestMs - now;
		const untilGap = this.seenFirst ? this.lastEvent + idleMs - now : this.started + firstByteMs - now;
		return Math.max(1, Math.min(untilRequest, untilGap));
	}
}

import type { ModelFailure } from "./failure.js";
import type { ModelAdapter, ModelEvent, ModelRequest } from "./model-adapter.js";
import { type StreamTimeouts, StreamWatchdog } from "./stream-watchdog.js";

export type { StreamTimeouts } from "./stream-watchdog.js";

/**
 * A model with a time limit on every wait of its streams, for code that reads a ModelAdapter
 * directly (the engine keeps these limits itself, on its own read loop). A stall becomes a
 * `timeout` failure: the inner request is aborted and the stream ends with that outcome.
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
		let timedOut: ModelFailure | undefined;
		const watchdog = new StreamWatchdog(this.limits, (failure) => {
			timedOut = failure;
			controller.abort(new Error(failure.message));
		});
		try {
			for await (const event of this.inner.streamGenerate(request, controller.signal)) {
				watchdog.event();
				if (timedOut !== undefined) break;
				yield event;
				if (event.type === "outcome") return;
			}
		} catch (error) {
			if (timedOut === undefined) throw error;
		} finally {
			watchdog.stop();
			signal.removeEventListener("abort", onAbort);
		}
		if (timedOut !== undefined) yield { type: "outcome", outcome: { status: "error", failure: timedOut } };
	}
}

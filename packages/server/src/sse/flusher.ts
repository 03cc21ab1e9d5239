/** Something with a queue to write out. */
export interface Flushable {
	flush(): void;
}

/**
 * Batches socket writes: every viewer that queued a frame while the event loop handled one event
 * (a model's read, a timer, a request) is flushed once, as that event's work ends (a tick, after
 * the microtasks it started), so a burst of messages costs one write per viewer, not one per
 * message (the cost of SSE is per write). Not at the end of the loop's whole turn (setImmediate):
 * there a frame waited behind every other timer and socket of the turn, and under 1,000 streaming
 * Sessions the p99 from a message's ts to its viewer was 58–134 ms, 6–15 ms flushed per event. The
 * price, more writes under overload, is measured in docs/performance.md.
 */
export class Flusher {
	/** Two sets taking turns: a flush may schedule again, into the other one (no copy per run). */
	private dirty = new Set<Flushable>();
	private flushing = new Set<Flushable>();
	private scheduled = false;
	private readonly runner = () => this.run();
	/**
	 * Node runs an event's ticks before its microtasks: a tick asked for from the event's own code
	 * would flush before the promise chains it started had queued their frames. Asked for from a
	 * microtask, it runs once those chains have settled.
	 */
	private readonly afterMicrotasks = () => process.nextTick(this.runner);

	schedule(target: Flushable): void {
		this.dirty.add(target);
		if (this.scheduled) return;
		this.scheduled = true;
		queueMicrotask(this.afterMicrotasks);
	}

	private run(): void {
		this.scheduled = false;
		const targets = this.dirty;
		this.dirty = this.flushing;
		this.flushing = targets;
		try {
			for (const target of targets) target.flush();
		} finally {
			targets.clear();
		}
	}
}

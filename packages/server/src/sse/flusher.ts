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
	/**
	 * The targets to flush, in order: an array reused run after run, not a Set. Every cleared or
	 * regrown Set allocated a new hash table, one per run (~20,000 runs a second under load), and
	 * those tables were among what the young generation promoted (docs/performance.md: Memory).
	 */
	private readonly queue: (Queued | undefined)[] = [];
	private length = 0;
	private scheduled = false;
	private readonly runner = () => this.run();
	/**
	 * Node runs an event's ticks before its microtasks: a tick asked for from the event's own code
	 * would flush before the promise chains it started had queued their frames. Asked for from a
	 * microtask, it runs once those chains have settled.
	 */
	private readonly afterMicrotasks = () => process.nextTick(this.runner);

	schedule(target: Flushable): void {
		const queued = target as Queued;
		if (queued[QUEUED] === true) return;
		queued[QUEUED] = true;
		this.queue[this.length++] = queued;
		if (!this.scheduled) this.askForRun();
	}

	/**
	 * Flushes every queued target. One queued during the run (a flush's own frames, or a target
	 * flushed earlier in it) is flushed in the same run: the loop reads the length each time, and
	 * `scheduled` stays set, so no second run is asked for.
	 */
	private run(): void {
		let index = 0;
		try {
			for (; index < this.length; index++) {
				const target = this.queue[index] as Queued;
				this.queue[index] = undefined;
				target[QUEUED] = false;
				target.flush();
			}
			this.length = 0;
		} finally {
			this.scheduled = false;
			// A flush threw: the targets after it keep their place, for a run of their own.
			if (this.length > 0) this.keepAfter(index);
		}
	}

	private keepAfter(index: number): void {
		const left = this.length - index - 1;
		this.queue.copyWithin(0, index + 1, this.length);
		this.queue.fill(undefined, left, this.length);
		this.length = left;
		if (left > 0) this.askForRun();
	}

	private askForRun(): void {
		this.scheduled = true;
		queueMicrotask(this.afterMicrotasks);
	}
}

/** Marks a target the Flusher has queued, so a burst of frames queues it once. */
const QUEUED = Symbol("queued for flush");

type Queued = Flushable & { [QUEUED]?: boolean };

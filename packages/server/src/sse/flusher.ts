/** Something with a queue to write out. */
export interface Flushable {
	flush(): void;
}

/**
 * Batches socket writes: every viewer that queued a frame during this turn of the event loop is
 * flushed once, at its end, so a burst of messages costs one write per viewer, not one per message
 * (the cost of SSE is per write).
 */
export class Flusher {
	/** Two sets taking turns: a flush may schedule again, into the other one (no copy per run). */
	private dirty = new Set<Flushable>();
	private flushing = new Set<Flushable>();
	private scheduled = false;
	private readonly runner = () => this.run();

	schedule(target: Flushable): void {
		this.dirty.add(target);
		if (this.scheduled) return;
		this.scheduled = true;
		setImmediate(this.runner);
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

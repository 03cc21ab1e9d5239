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
	private readonly dirty = new Set<Flushable>();
	private scheduled = false;

	schedule(target: Flushable): void {
		this.dirty.add(target);
		if (this.scheduled) return;
		this.scheduled = true;
		setImmediate(() => this.run());
	}

	private run(): void {
		this.scheduled = false;
		const targets = [...this.dirty];
		this.dirty.clear();
		for (const target of targets) target.flush();
	}
}

/**
 * Time limits for many calls on one timer. Every call of a Session has the same limit, so
 * deadlines arrive in order and a queue is enough; the timer holds the process open only while a
 * call runs.
 * Contract: `add` is called with non-decreasing deadlines.
 */
export class Deadlines {
	private queue: { at: number; fire: () => void; live: boolean }[] = [];
	private live = 0;
	private timer: ReturnType<typeof setTimeout> | undefined;

	/** Calls `fire` at `at` (on the monotonic clock, `performance.now()`) unless the returned cancel is called first. */
	add(at: number, fire: () => void): () => void {
		const entry = { at, fire, live: true };
		this.queue.push(entry);
		this.live++;
		if (this.timer === undefined) this.arm();
		else if (this.live === 1) this.timer.ref();
		return () => {
			if (!entry.live) return;
			entry.live = false;
			this.live--;
			if (this.live === 0) this.idle();
		};
	}

	private arm(): void {
		while (this.queue.length > 0 && !this.queue[0]?.live) this.queue.shift();
		const next = this.queue[0];
		if (next === undefined) {
			this.reset();
			return;
		}
		this.timer = setTimeout(() => this.expire(), Math.max(0, next.at - performance.now()));
	}

	private expire(): void {
		this.timer = undefined;
		const now = performance.now();
		while (this.queue.length > 0 && (this.queue[0] as { at: number }).at <= now) {
			const entry = this.queue.shift() as { fire: () => void; live: boolean };
			if (!entry.live) continue;
			entry.live = false;
			this.live--;
			entry.fire();
		}
		if (this.live > 0) this.arm();
		else this.reset();
	}

	/**
	 * No call runs: the timer stays, unref'd (it holds no process open), instead of being cleared
	 * and made again by the next batch — a timer per batch was a tenth of a short turn's CPU
	 * (bench W2). It is due no later than any later deadline (they never decrease), so when it
	 * fires it finds the next one, or nothing and stops.
	 */
	private idle(): void {
		this.queue = [];
		this.timer?.unref();
	}

	private reset(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		this.queue = [];
	}
}

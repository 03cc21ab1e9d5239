/**
 * Time limits for many waits on one timer: a Session's tool calls, or its model requests' checks.
 * Deadlines usually arrive in order (every call of a Session has the same limit), so an entry
 * goes on the end of the queue; one that comes earlier than the timer is due re-arms it. The
 * timer holds the process open only while a deadline is live.
 */
export class Deadlines {
	private queue: { at: number; fire: () => void; live: boolean }[] = [];
	private live = 0;
	private timer: ReturnType<typeof setTimeout> | undefined;
	/** When the timer is due, on `now`'s clock. */
	private armedAt = Number.POSITIVE_INFINITY;

	/** @param now the clock deadlines are given on: monotonic by default (`performance.now()`). */
	constructor(private readonly now: () => number = () => performance.now()) {}

	/** Calls `fire` at `at` (on the clock `now`) unless the returned cancel is called first. */
	add(at: number, fire: () => void): () => void {
		const entry = { at, fire, live: true };
		this.insert(entry);
		this.live++;
		if (this.timer === undefined || at < this.armedAt) this.arm();
		else if (this.live === 1) this.timer.ref();
		return () => {
			if (!entry.live) return;
			entry.live = false;
			this.live--;
			if (this.live === 0) this.idle();
		};
	}

	/** Stops the timer whatever is queued: for a Deadlines that is its owner's alone, when that owner is done. */
	clear(): void {
		this.reset();
		this.live = 0;
	}

	/** In order of `at`, after the entries due at the same moment: from the end, where a deadline usually goes. */
	private insert(entry: { at: number; fire: () => void; live: boolean }): void {
		let i = this.queue.length;
		while (i > 0 && (this.queue[i - 1] as { at: number }).at > entry.at) i--;
		if (i === this.queue.length) this.queue.push(entry);
		else this.queue.splice(i, 0, entry);
	}

	private arm(): void {
		clearTimeout(this.timer);
		while (this.queue.length > 0 && !this.queue[0]?.live) this.queue.shift();
		const next = this.queue[0];
		if (next === undefined) {
			this.reset();
			return;
		}
		this.armedAt = next.at;
		this.timer = setTimeout(() => this.expire(), Math.max(0, next.at - this.now()));
	}

	private expire(): void {
		this.timer = undefined;
		this.armedAt = Number.POSITIVE_INFINITY;
		const now = this.now();
		while (this.queue.length > 0 && (this.queue[0] as { at: number }).at <= now) {
			const entry = this.queue.shift() as { fire: () => void; live: boolean };
			if (!entry.live) continue;
			entry.live = false;
			this.live--;
			entry.fire();
		}
		// A fired entry may have added the next one (and armed the timer for it) already.
		if (this.timer !== undefined) return;
		if (this.live > 0) this.arm();
		else this.reset();
	}

	/**
	 * Nothing is live: the timer stays, unref'd (it holds no process open), instead of being
	 * cleared and made again by the next wait — a timer per batch was a tenth of a short turn's
	 * CPU (bench W2), and one per model request its twentieth. When it fires it finds the next
	 * deadline, or nothing and stops; a deadline earlier than it re-arms it.
	 */
	private idle(): void {
		this.queue = [];
		this.timer?.unref();
	}

	private reset(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		this.armedAt = Number.POSITIVE_INFINITY;
		this.queue = [];
	}
}

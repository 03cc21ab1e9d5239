/**
 * The run's output: many producers (the model stream, tools finishing, approvals) push; the
 * run's reader takes. Unbounded, in push order, no copy per item.
 */
export class OutputChannel<T> {
	private buffer: (T | undefined)[] = [];
	private head = 0;
	private waiter: (() => void) | undefined;
	private closed = false;
	private pushed = 0;
	private taken = 0;
	/** Waiting for the reader to have taken the item at a position: few (one per approval asked). */
	private takenWaiters: { position: number; resolve: () => void }[] = [];

	/** Adds an item; returns its position, for `untilTaken`. */
	push(item: T): number {
		if (this.closed) return this.pushed;
		this.buffer.push(item);
		this.pushed++;
		this.wake();
		return this.pushed;
	}

	/** Settles once the reader has taken the item at `position` (or the channel is closed). */
	untilTaken(position: number): Promise<void> {
		if (this.taken >= position || this.closed) return Promise.resolve();
		return new Promise<void>((resolve) => this.takenWaiters.push({ position, resolve }));
	}

	/** No more items; the reader takes what is buffered and stops. */
	close(): void {
		this.closed = true;
		this.wake();
		for (const waiter of this.takenWaiters.splice(0)) waiter.resolve();
	}

	get isClosed(): boolean {
		return this.closed;
	}

	/** The next buffered item, or undefined when there is none now. */
	take(): T | undefined {
		if (this.head === this.buffer.length) return undefined;
		const item = this.buffer[this.head];
		this.buffer[this.head] = undefined;
		this.head++;
		this.taken++;
		if (this.takenWaiters.length > 0) this.releaseTaken();
		if (this.head === this.buffer.length) {
			this.buffer.length = 0;
			this.head = 0;
		}
		return item;
	}

	/** Settles when an item is pushed or the channel closes (at once if either already happened). */
	wait(): Promise<void> {
		if (this.head < this.buffer.length || this.closed) return Promise.resolve();
		return new Promise<void>((resolve) => {
			this.waiter = resolve;
		});
	}

	private releaseTaken(): void {
		this.takenWaiters = this.takenWaiters.filter((waiter) => {
			if (waiter.position > this.taken) return true;
			waiter.resolve();
			return false;
		});
	}

	private wake(): void {
		const waiter = this.waiter;
		if (waiter === undefined) return;
		this.waiter = undefined;
		waiter();
	}
}

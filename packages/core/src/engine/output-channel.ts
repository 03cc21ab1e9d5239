/**
 * The run's output: many producers (the model stream, tools finishing, approvals) push; the
 * run's reader takes. Unbounded, in push order, no copy per item.
 */
export class OutputChannel<T> {
	private buffer: (T | undefined)[] = [];
	private head = 0;
	private waiter: (() => void) | undefined;
	private closed = false;

	push(item: T): void {
		if (this.closed) return;
		this.buffer.push(item);
		this.wake();
	}

	/** No more items; the reader takes what is buffered and stops. */
	close(): void {
		this.closed = true;
		this.wake();
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

	private wake(): void {
		const waiter = this.waiter;
		if (waiter === undefined) return;
		this.waiter = undefined;
		waiter();
	}
}

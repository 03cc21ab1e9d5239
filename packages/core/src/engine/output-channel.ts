/**
 * The run's output: many producers (the model stream, tools finishing, approvals) push; the
 * run's generator pulls. Unbounded, in push order, no copy per item.
 */
export class OutputChannel<T> {
	private buffer: T[] = [];
	private head = 0;
	private waiter: (() => void) | undefined;
	private closed = false;

	push(item: T): void {
		if (this.closed) return;
		this.buffer.push(item);
		this.wake();
	}

	/** No more items; the reader drains what is buffered and stops. */
	close(): void {
		this.closed = true;
		this.wake();
	}

	async *drain(): AsyncGenerator<T, void, undefined> {
		for (;;) {
			while (this.head < this.buffer.length) {
				const item = this.buffer[this.head] as T;
				this.head++;
				yield item;
			}
			this.buffer = [];
			this.head = 0;
			if (this.closed) return;
			await new Promise<void>((resolve) => {
				this.waiter = resolve;
			});
		}
	}

	private wake(): void {
		const waiter = this.waiter;
		if (waiter === undefined) return;
		this.waiter = undefined;
		waiter();
	}
}

/**
 * The run's output: many producers (the model stream, tools finishing, approvals) push; one
 * reader takes. Unbounded, in push order, no copy per item. When the reader is already waiting,
 * a pushed item is handed to it directly: the common case while streaming, one promise per item.
 */
export class OutputChannel<T> {
	private buffer: (T | undefined)[] = [];
	private head = 0;
	/** The reader waiting for an item: a field, not a queue entry, since every streamed delta passes here. */
	private reader: ((item: IteratorResult<T, undefined>) => void) | undefined;
	private rejectReader: ((error: unknown) => void) | undefined;
	/** Readers that called `next` again before the first was answered, oldest first (rare; a generator queues them). */
	private laterReaders: { resolve: (item: IteratorResult<T, undefined>) => void; reject: (error: unknown) => void }[] =
		[];
	private closed = false;
	private pushed = 0;
	private taken = 0;
	/** Waiting for the reader to have taken the item at a position: few (one per approval asked). */
	private takenWaiters: { position: number; resolve: () => void }[] = [];

	/** @param ending what the reader gets once the channel is closed and drained (e.g. after cleanup). */
	constructor(
		private readonly ending: () => Promise<IteratorResult<T, undefined>> = () =>
			Promise.resolve({ value: undefined, done: true }),
	) {}

	/** Adds an item; returns its position, for `untilTaken`. */
	push(item: T): number {
		if (this.closed) return this.pushed;
		this.pushed++;
		const reader = this.reader;
		if (reader !== undefined) {
			if (this.laterReaders.length === 0) {
				this.reader = undefined;
				this.rejectReader = undefined;
			} else this.promoteLaterReader();
			this.taken++;
			if (this.takenWaiters.length > 0) this.releaseTaken();
			reader({ value: item, done: false });
		} else this.buffer.push(item);
		return this.pushed;
	}

	/** No more items; the reader takes what is buffered and then gets the ending. */
	close(): void {
		this.closed = true;
		for (const waiter of this.takenWaiters.splice(0)) waiter.resolve();
		if (this.reader !== undefined) this.ending().then(this.reader, this.rejectReader);
		this.reader = undefined;
		this.rejectReader = undefined;
		for (const reader of this.laterReaders.splice(0)) this.ending().then(reader.resolve, reader.reject);
	}

	/** The next item, at once when one is buffered; `done` once closed and drained. */
	next(): Promise<IteratorResult<T, undefined>> {
		if (this.head < this.buffer.length) {
			const item = this.buffer[this.head] as T;
			this.buffer[this.head] = undefined;
			this.head++;
			if (this.head === this.buffer.length) {
				this.buffer = [];
				this.head = 0;
			}
			this.taken++;
			if (this.takenWaiters.length > 0) this.releaseTaken();
			return Promise.resolve({ value: item, done: false });
		}
		if (this.closed) return this.ending();
		return new Promise((resolve, reject) => {
			if (this.reader === undefined) {
				this.reader = resolve;
				this.rejectReader = reject;
			} else this.laterReaders.push({ resolve, reject });
		});
	}

	private promoteLaterReader(): void {
		const next = this.laterReaders.shift();
		this.reader = next?.resolve;
		this.rejectReader = next?.reject;
	}

	/** Settles once the reader has taken the item at `position` (or the channel is closed). */
	untilTaken(position: number): Promise<void> {
		if (this.taken >= position || this.closed) return Promise.resolve();
		return new Promise<void>((resolve) => this.takenWaiters.push({ position, resolve }));
	}

	private releaseTaken(): void {
		this.takenWaiters = this.takenWaiters.filter((waiter) => {
			if (waiter.position > this.taken) return true;
			waiter.resolve();
			return false;
		});
	}
}

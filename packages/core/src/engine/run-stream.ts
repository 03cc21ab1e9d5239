import type { OutputChannel } from "./output-channel.js";

/** The work behind a RunStream, started on the first read. */
export interface RunWork<T> {
	readonly channel: OutputChannel<T>;
	/** Settles when the work is over; must close the channel by then. */
	readonly running: Promise<void>;
	/** Stops the work early (the reader went away): must make `running` settle promptly. */
	stop(): void;
	/** Called once, after the work is over, however it ended. */
	cleanup(): void;
}

/**
 * What `run` and `compact` return: an async generator over the work's output, hand-written so a
 * buffered message costs one resolved promise (a generator chain costs several hops per item,
 * and every streamed delta passes here). The work starts on the first read; closing the stream
 * before that releases the Session all the same, and closing it early stops the work.
 */
export class RunStream<T> implements AsyncGenerator<T, void, undefined> {
	private work: RunWork<T> | undefined;
	private finished: Promise<IteratorResult<T, void>> | undefined;

	constructor(
		private readonly start: () => RunWork<T>,
		/** Frees the Session when the stream ends before it ever started. */
		private readonly releaseUnstarted: () => void,
	) {}

	next(): Promise<IteratorResult<T, void>> {
		this.work ??= this.start();
		const item = this.work.channel.take();
		if (item !== undefined) return Promise.resolve({ value: item, done: false });
		if (this.work.channel.isClosed) return this.finish(this.work);
		const work = this.work;
		return work.channel.wait().then(() => this.next());
	}

	return(): Promise<IteratorResult<T, void>> {
		if (this.work === undefined) {
			this.releaseUnstarted();
			this.finished ??= Promise.resolve({ value: undefined, done: true });
			return this.finished;
		}
		this.work.stop();
		return this.finish(this.work);
	}

	async throw(error: unknown): Promise<IteratorResult<T, void>> {
		await this.return();
		throw error;
	}

	[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
		return this;
	}

	private finish(work: RunWork<T>): Promise<IteratorResult<T, void>> {
		this.finished ??= work.running.then(
			() => {
				work.cleanup();
				return { value: undefined, done: true } as const;
			},
			(error: unknown) => {
				work.cleanup();
				throw error;
			},
		);
		return this.finished;
	}
}

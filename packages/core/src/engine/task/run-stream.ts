import { OutputChannel } from "./output-channel.js";

/** The work behind a RunStream, started on the first read. */
export interface RunWork {
	/** Settles when the work is over; the channel is closed then. */
	readonly running: Promise<void>;
	/** Stops the work early (the reader went away): must make `running` settle promptly. */
	stop(): void;
	/** Called once, when the work is over, however it ended. */
	cleanup(): void;
}

/**
 * What `run` and `compact` return: an async generator over the work's output, hand-written so a
 * message costs one promise (a generator chain costs several hops per item, and every streamed
 * delta passes here). The work starts on the first read; closing the stream before that releases
 * the Session all the same, and closing it early stops the work.
 */
export class RunStream<T> implements AsyncGenerator<T, void, undefined> {
	readonly channel = new OutputChannel<T>(() => this.finish());
	private work: RunWork | undefined;
	private finished: Promise<IteratorResult<T, undefined>> | undefined;
	/** Closed by `return` or `throw`: never (re)started, only `done` from here. */
	private closed = false;

	constructor(
		private readonly start: (channel: OutputChannel<T>) => RunWork,
		/** Frees the Session when the stream ends before it ever started. */
		private readonly releaseUnstarted: () => void,
	) {}

	next(): Promise<IteratorResult<T, void>> {
		if (this.work === undefined) {
			if (this.closed) return Promise.resolve({ value: undefined, done: true });
			const work = this.start(this.channel);
			this.work = work;
			// Cleanup runs when the work ends, whether or not the reader reads to the end.
			work.running.then(
				() => work.cleanup(),
				() => work.cleanup(),
			);
		}
		return this.channel.next();
	}

	return(): Promise<IteratorResult<T, void>> {
		this.closed = true;
		if (this.work === undefined) {
			this.releaseUnstarted();
			this.finished ??= Promise.resolve({ value: undefined, done: true });
			return this.finished;
		}
		this.work.stop();
		return this.finish();
	}

	async throw(error: unknown): Promise<IteratorResult<T, void>> {
		await this.return();
		throw error;
	}

	[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
		return this;
	}

	/** Waits for the work to be over and ends the stream (or rethrows the work's failure). */
	private finish(): Promise<IteratorResult<T, undefined>> {
		const work = this.work;
		if (work === undefined) return Promise.resolve({ value: undefined, done: true });
		this.finished ??= work.running.then(() => ({ value: undefined, done: true }) as const);
		return this.finished;
	}
}

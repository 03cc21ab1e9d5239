/** What `Interruptible.race` gives when the signal fires first. */
export const ABORTED: unique symbol = Symbol("aborted");
export type Aborted = typeof ABORTED;

/**
 * Races promises against one signal without adding a listener per race (the loop races every
 * streamed event, so a listener each would cost more than the event).
 */
export class Interruptible {
	private readonly waiters = new Set<() => void>();
	/** `signal.aborted`, as a plain field: the loop checks it once per streamed event, and the getter costs more. */
	aborted: boolean;

	constructor(readonly signal: AbortSignal) {
		this.aborted = signal.aborted;
		signal.addEventListener(
			"abort",
			() => {
				this.aborted = true;
				for (const waiter of this.waiters) waiter();
				this.waiters.clear();
			},
			{ once: true },
		);
	}

	/** Calls `listener` once when the signal fires; returns a function that stops watching. */
	onAbort(listener: () => void): () => void {
		this.waiters.add(listener);
		return () => {
			this.waiters.delete(listener);
		};
	}

	/**
	 * Settles like `promise`, or with ABORTED as soon as the signal fires. A promise that loses the
	 * race is still observed: its rejection is swallowed, never unhandled.
	 */
	race<T>(promise: Promise<T>): Promise<T | Aborted> {
		if (this.signal.aborted) {
			promise.catch(() => {});
			return Promise.resolve(ABORTED);
		}
		return new Promise<T | Aborted>((resolve, reject) => {
			const onAbort = () => resolve(ABORTED);
			this.waiters.add(onAbort);
			promise.then(
				(value) => {
					this.waiters.delete(onAbort);
					resolve(value);
				},
				(error: unknown) => {
					this.waiters.delete(onAbort);
					reject(error);
				},
			);
		});
	}
}

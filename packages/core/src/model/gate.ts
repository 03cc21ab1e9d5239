/**
 * A point a test can hold a scripted model (or a tool) at, and release when it chooses.
 */
export interface Gate {
	/** Settles when something first waits at the gate. */
	readonly reached: Promise<void>;
	readonly isReached: boolean;
	readonly isReleased: boolean;
	/** Lets every waiter through, now and later. */
	release(): void;
	/** Waits until released; rejects with the signal's reason if the signal fires first. */
	wait(signal?: AbortSignal): Promise<void>;
}

export function createGate(): Gate {
	let markReached!: () => void;
	let open!: () => void;
	const reached = new Promise<void>((resolve) => {
		markReached = resolve;
	});
	const released = new Promise<void>((resolve) => {
		open = resolve;
	});
	const state = { reached: false, released: false };
	return {
		reached,
		get isReached() {
			return state.reached;
		},
		get isReleased() {
			return state.released;
		},
		release() {
			state.released = true;
			open();
		},
		wait(signal) {
			state.reached = true;
			markReached();
			if (state.released) return Promise.resolve();
			if (signal === undefined) return released;
			return abortable(released, signal);
		},
	};
}

/** Settles like `promise`, or rejects with the signal's reason as soon as it fires. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
	if (signal.aborted) return Promise.reject(signal.reason);
	return new Promise<T>((resolve, reject) => {
		const onAbort = () => reject(signal.reason);
		signal.addEventListener("abort", onAbort, { once: true });
		promise.then(
			(value) => {
				signal.removeEventListener("abort", onAbort);
				resolve(value);
			},
			(error: unknown) => {
				signal.removeEventListener("abort", onAbort);
				reject(error);
			},
		);
	});
}

/** setTimeout as a promise that rejects with the signal's reason when it fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	if (signal?.aborted) return Promise.reject(signal.reason);
	return new Promise<void>((resolve, reject) => {
		const onAbort = () => {
			clearTimeout(timer);
			reject(signal?.reason);
		};
		const timer = setTimeout(() => {
			signal?.removeEventListener("abort", onAbort);
			resolve();
		}, ms);
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}

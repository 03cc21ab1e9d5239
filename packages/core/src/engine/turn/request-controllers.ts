import { getEventListeners } from "node:events";

/**
 * The AbortControllers of one Session's model requests, which come one at a time. A request that
 * ended without being aborted, and whose model let go of its signal (no listener left on it),
 * hands its controller to the next request: a controller and its signal made per request were
 * ~3% of a short turn (bench W2). One that was aborted, or that something still listens to, is
 * never given out again.
 */
export class RequestControllers {
	private spare: AbortController | undefined;

	/** A controller no one else uses: the spare one, or a new one. */
	take(): AbortController {
		const spare = this.spare;
		this.spare = undefined;
		return spare ?? new AbortController();
	}

	/** The request that had `controller` is over, and nothing of it runs on: the next may have it. */
	giveBack(controller: AbortController): void {
		const { signal } = controller;
		if (!signal.aborted && getEventListeners(signal, "abort").length === 0) this.spare = controller;
	}
}

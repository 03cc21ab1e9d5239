import { sleep } from "../../model/gate.js";

/**
 * The wait between a failure and its reconnect, which the host may cut short
 * (`Session.skipReconnectWait`) without touching the attempt counter.
 */
export class ReconnectWait {
	private skipCurrent: (() => void) | undefined;

	async sleep(ms: number, signal: AbortSignal): Promise<void> {
		const skipped = new AbortController();
		this.skipCurrent = () => skipped.abort();
		const both = AbortSignal.any([signal, skipped.signal]);
		try {
			await sleep(ms, both);
		} catch (error) {
			if (signal.aborted) throw error;
		} finally {
			this.skipCurrent = undefined;
		}
	}

	/** Ends the current wait now; false when no wait is running. */
	skip(): boolean {
		const skip = this.skipCurrent;
		if (skip === undefined) return false;
		// At once, not when the wait wakes: a second call right after is not a second skip.
		this.skipCurrent = undefined;
		skip();
		return true;
	}
}

import type { HostContext } from "./host-context.js";

/** A store write that failed: what it was for, and whether it is tried again. */
export interface StoreFailure {
	sessionId: string | null;
	/** What the write was for: `usage`, `title`, `lock`, `updated_at`, … */
	operation: string;
	error: unknown;
	/** Kept and tried again (a usage row), or given up. */
	retrying: boolean;
}

/**
 * A write nobody waits for failed: counted in `/metrics`, logged, and sent as a `store_error`
 * frame on every tab's `GET /events` stream, so the person using the Session sees it too (README,
 * "The Runtime Server").
 */
export function reportStoreFailure(host: HostContext, failure: StoreFailure): void {
	const { sessionId, operation, error, retrying } = failure;
	host.metrics.storeWriteFailed(operation);
	host.report(error);
	host.bus.publish({
		type: "store_error",
		sessionId,
		operation,
		message: error instanceof Error ? error.message : String(error),
		retrying,
	});
}

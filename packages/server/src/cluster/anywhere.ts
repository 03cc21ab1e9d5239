import type { PendingConfirmation } from "../host/confirmations.js";
import type { HostedSession } from "../host/hosted-session.js";

/**
 * A Task's controls from whichever process a request reaches: here when the Task runs here,
 * else (with Postgres) through the process that runs it.
 */

/** `steer`, or steering a Task another process runs (accepted: a live process runs it). */
export async function steerAnywhere(hosted: HostedSession, text: string): Promise<boolean> {
	const { cluster } = hosted.host;
	if (hosted.running || cluster === undefined) return hosted.steer(text);
	return cluster.steerElsewhere(hosted.id, text);
}

/** `abort`, or the abort of a Task another process runs. */
export async function abortAnywhere(hosted: HostedSession): Promise<boolean> {
	if (hosted.abort()) return true;
	const { cluster } = hosted.host;
	if (hosted.running || cluster === undefined) return false;
	return cluster.abortElsewhere(hosted.id);
}

/** The pending list; for a Task on another process, as the store has it. */
export async function pendingAnywhere(hosted: HostedSession): Promise<PendingConfirmation[]> {
	const { cluster } = hosted.host;
	if (hosted.running || cluster === undefined) return hosted.pendingConfirmations();
	return cluster.control.pending(hosted.id);
}

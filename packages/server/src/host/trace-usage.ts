import type { SessionStore, SessionSummary } from "@omniloop/core";
import type { Store, StoredSession } from "../store/store.js";

/**
 * The usage rows of a Session the CLI ran in-process (no server saw its stream): one per
 * `token_usage` of its Trace files, as the server records them live (host/side-effects.ts).
 * Only the history after the store's last row is read: seqs only grow, so what the server saw
 * lies before it, and a start with many Sessions does not read each one's whole Trace again.
 * `addUsage` is idempotent, so a row already there stays one.
 */
export async function importTraceUsage(
	store: Pick<Store, "addUsage" | "lastUsageSeq">,
	sessions: SessionStore,
	row: StoredSession,
): Promise<void> {
	const after = await store.lastUsageSeq(row.id);
	for (const message of sessions.history(row.id, { after })) {
		if (message.type !== "token_usage") continue;
		await store.addUsage({
			sessionId: row.id,
			seq: message.seq,
			agentId: row.agentId,
			model: row.model,
			ts: message.ts,
			...message.request,
		});
	}
}

/** Whether the home's Trace went on after the store last saw the Session (a CLI run while no server was up). */
export function ranWithoutServer(summary: SessionSummary, row: StoredSession | undefined): boolean {
	return row === undefined || Date.parse(summary.updatedAt) > row.updatedAt;
}

import type { SessionStore, SessionSummary } from "@omniloop/core";
import type { Store, StoredSession } from "../store/store.js";

/**
 * The usage rows of a Session the CLI ran in-process (no server saw its stream): one per
 * `token_usage` of its Trace files, as the server records them live (host/side-effects.ts).
 * `addUsage` is idempotent, so rows already there stay one each.
 */
export async function importTraceUsage(
	store: Pick<Store, "addUsage">,
	sessions: SessionStore,
	row: StoredSession,
): Promise<void> {
	for (const message of sessions.history(row.id)) {
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

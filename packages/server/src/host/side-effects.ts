import type { OmniMessage } from "@omniloop/core";
import { promptTitle } from "@omniloop/core/internal";
import type { SessionFence } from "../coordination/session-fence.js";
import type { StoredSession, UsageRow } from "../store/store.js";
import type { HostContext } from "./host-context.js";
import { reportStoreFailure } from "./store-failures.js";

/** What recording needs of a hosted Session (hosted-session.ts's HostedSession is one). */
export interface RecordingSession {
	readonly id: string;
	readonly host: HostContext;
	readonly row: StoredSession;
	/** The auth lock, null when there is none. */
	readonly lock: { readonly credential: string } | null;
	update(change: Pick<Partial<StoredSession>, "title">, fence: SessionFence): Promise<void>;
	setLock(credential: string | null, fence: SessionFence): Promise<void>;
	/** The credential the Session's model reads, if any. */
	credential(): string | undefined;
}

/**
 * What the server records from a Session's stream: one usage row per `token_usage`, as it
 * happens; the auth lock when a request ends `auth` (and its release when one ends `ok`); the
 * Session's name from its first prompt, whichever way it came (a chat message, a workflow step),
 * until a title is generated. None of these writes holds the stream; a failure is reported
 * (host/store-failures.ts), and a usage row is kept until it is written. Each is the Task's, under
 * its claim (`Coordinator.sessionFence`): a process that lost the Session writes none of them.
 */
export function recordMessage(hosted: RecordingSession, message: OmniMessage): void {
	const { host } = hosted;
	const failed = (operation: string) => (error: unknown) =>
		reportStoreFailure(host, { sessionId: hosted.id, operation, error, retrying: false });
	const fence = () => host.coordinator.sessionFence(hosted.id);
	switch (message.type) {
		case "user_text":
			if (message.origin === undefined && hosted.row.title === null)
				hosted.update({ title: promptTitle(message.text) }, fence()).catch(failed("title"));
			break;
		case "token_usage":
			// Kept until written; with Postgres, fenced by the Session's lease (docs/cluster.md).
			host.usage.record(usageRowOf(hosted, message) as UsageRow);
			break;
		case "request_end":
			// A subagent's request (forwarded, with its origin) is on its own agent's model: its
			// credential failing is not this Session's model's.
			if (message.origin !== undefined) break;
			if (message.status === "auth") {
				hosted.setLock(hosted.credential() ?? "unknown", fence()).catch(failed("lock"));
			} else if (message.status === "ok" && hosted.lock !== null) {
				hosted.setLock(null, fence()).catch(failed("lock"));
			}
			break;
		default:
			break;
	}
}

/**
 * A `token_usage` message's usage row (undefined for any other message): under the agent and
 * model that made the request — a subagent's, forwarded with its origin, are its own, so its
 * tokens are priced at its model's price.
 */
export function usageRowOf(hosted: Pick<RecordingSession, "id" | "row">, message: OmniMessage): UsageRow | undefined {
	if (message.type !== "token_usage") return undefined;
	return {
		sessionId: hosted.id,
		seq: message.seq,
		agentId: message.origin?.agentId ?? hosted.row.agentId,
		model: message.model ?? hosted.row.model,
		ts: message.ts,
		...message.request,
	};
}

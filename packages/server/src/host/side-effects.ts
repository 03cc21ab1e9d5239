import { type OmniMessage, promptTitle } from "@omniloop/core";
import type { HostedSession } from "./hosted-session.js";

/**
 * What the server records from a Session's stream: one usage row per `token_usage`, as it
 * happens; the auth lock when a request ends `auth` (and its release when one ends `ok`); the
 * Session's name from its first prompt, whichever way it came (a chat message, a workflow step),
 * until a title is generated.
 */
export function recordMessage(hosted: HostedSession, message: OmniMessage): void {
	const { host } = hosted;
	switch (message.type) {
		case "user_text":
			if (message.origin === undefined && hosted.row.title === null)
				hosted.update({ title: promptTitle(message.text) }).catch((error: unknown) => host.report(error));
			break;
		case "token_usage":
			// With Postgres, fenced by the Session's lease (docs/cluster.md).
			(host.cluster ?? host.store)
				.addUsage({
					sessionId: hosted.id,
					seq: message.seq,
					agentId: hosted.row.agentId,
					model: hosted.row.model,
					ts: message.ts,
					...message.request,
				})
				.catch((error: unknown) => host.report(error));
			break;
		case "request_end":
			if (message.status === "auth") {
				hosted.setLock(hosted.credential() ?? "unknown").catch((error: unknown) => host.report(error));
			} else if (message.status === "ok" && hosted.lock !== null) {
				hosted.setLock(null).catch((error: unknown) => host.report(error));
			}
			break;
		default:
			break;
	}
}

import type { ThinkingLevel, UsageGroupBy } from "@omniloop/client";
import { client } from "./http.js";

/** The Runtime Server's routes the app calls, one function each (docs/protocol.md §3). */

const id = (sessionId: string) => ({ params: { id: sessionId } });

export const api = {
	sessions: () => client.call("GET /chat/sessions").then((a) => a.sessions),
	createSession: (body: { agentId?: string; workspaceDir?: string }) => client.call("POST /chat/sessions", { body }),
	deleteSession: (s: string) => client.call("DELETE /chat/sessions/:id", id(s)),
	/** Sessions whose title or messages hold `q` (the server reads the newest 200 Sessions' messages). */
	searchSessions: (q: string) => client.searchSessions(q).then((a) => a.sessions),
	rename: (s: string, title: string) => client.call("PATCH /chat/sessions/:id", { ...id(s), body: { title } }),
	/** The Session's next Tasks run on configured model `name` (the CLI's /model). */
	setModel: (s: string, name: string) => client.setSessionModel(s, name),
	pending: (s: string) =>
		client.call("GET /chat/sessions/:id", { ...id(s), query: { limit: 0 } }).then((a) => a.pendingConfirmations),
	/** Whether the Session has any message yet (its first, if any, from the Trace). */
	hasMessages: (s: string) =>
		client.call("GET /chat/sessions/:id", { ...id(s), query: { limit: 1 } }).then((a) => a.messages.length > 0),
	/** Starts a Task; its messages arrive on the tab's event stream, not in this answer. */
	send: (s: string, text: string, thinkingLevel?: ThinkingLevel) =>
		client.call("POST /chat/sessions/:id/messages", {
			...id(s),
			body: { text, ...(thinkingLevel === undefined ? {} : { thinkingLevel }) },
			headers: { prefer: "respond-async" },
		}),
	steer: (s: string, text: string) => client.call("POST /chat/sessions/:id/steer", { ...id(s), body: { text } }),
	abort: (s: string) => client.call("POST /chat/sessions/:id/abort", id(s)),
	retryNow: (s: string) => client.call("POST /chat/sessions/:id/retry-now", id(s)),
	answer: (s: string, correlationId: string, decision: "allow" | "deny", always: boolean) =>
		client.call("POST /chat/sessions/:id/ask-user-response", {
			...id(s),
			body: { correlationId, decision, ...(always ? { always: true } : {}) },
		}),
	workflows: () => client.call("GET /workflows").then((a) => a.workflows),
	/** A workflow's decision is durable and waits for `resumeWorkflow` (docs/protocol.md §5.7). */
	approveWorkflow: (w: string, correlationId: string, decision: "allow" | "deny") =>
		client.call("POST /workflows/:id/approve", { params: { id: w }, body: { correlationId, decision } }),
	resumeWorkflow: (w: string) => client.call("POST /workflows/:id/resume", { params: { id: w } }),
	cancelWorkflow: (w: string) => client.call("POST /workflows/:id/cancel", { params: { id: w } }),
	compactability: (s: string) =>
		client.call("GET /chat/sessions/:id/compactability", id(s)).then((a) => a.compactability),
	/**
	 * Starts a compaction. The answer is its SSE stream; the tab's event stream carries the same
	 * messages, so this stops reading at once (a reader going away never stops the work).
	 */
	compact: async (s: string) => {
		const response = await client.request("POST /chat/sessions/:id/compact", id(s));
		await response.body?.cancel();
	},
	title: (s: string) => client.call("POST /chat/sessions/:id/title", id(s)).then((a) => a.title),
	/** The damaged lines of the Session's Trace (none: an empty list). */
	traceDamage: (s: string) =>
		client.call("GET /chat/sessions/:id", { ...id(s), query: { limit: 0 } }).then((a) => a.traceDamage ?? []),
	detail: (s: string) =>
		client.call("GET /chat/sessions/:id", { ...id(s), query: { limit: 0 } }).then((a) => a.session),
	reloadInstructions: (s: string) => client.call("POST /chat/sessions/:id/instructions/reload", id(s)),
	restore: (s: string, checkpointId: string, overwrite = false) =>
		client.call("POST /chat/sessions/:id/checkpoints/:checkpointId/restore", {
			params: { id: s, checkpointId },
			body: overwrite ? { overwrite } : {},
		}),
	checkpoints: (s: string) => client.call("GET /chat/sessions/:id/checkpoints", id(s)).then((a) => a.checkpoints),
	/** What restoring the checkpoint would change; `conflict` marks what it would keep. */
	checkpointDiff: (s: string, checkpointId: string) =>
		client
			.call("GET /chat/sessions/:id/checkpoints/:checkpointId/diff", { params: { id: s, checkpointId } })
			.then((a) => a.files),
	filesChanged: (s: string) => client.call("GET /chat/sessions/:id/files-changed", id(s)).then((a) => a.files),
	rewind: (s: string, seq: number, files: boolean) =>
		client.call("POST /chat/sessions/:id/rewind", { ...id(s), body: { seq, files } }),
	/** With `workspaceDir` (a new folder inside a workspace root) the fork gets the files as they were then. */
	fork: (s: string, seq: number, workspaceDir?: string) =>
		client.call("POST /chat/sessions/:id/fork", {
			...id(s),
			body: workspaceDir === undefined ? { seq } : { seq, workspaceDir },
		}),
	dismissLock: (s: string) => client.call("DELETE /chat/sessions/:id/lock", id(s)),
	agents: () => client.call("GET /agents"),
	credentials: () => client.call("GET /credentials").then((a) => a.credentials),
	setCredential: (name: string, value: string) =>
		client.call("PUT /credentials/:name", { params: { name }, body: { value } }),
	usage: (groupBy: UsageGroupBy) => client.call("GET /usage", { query: { groupBy } }).then((a) => a.rows),
};

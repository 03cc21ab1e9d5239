import { call, callJson } from "./http.js";
import type {
	AgentsAnswer,
	CredentialInfo,
	FileChange,
	PendingConfirmation,
	RestoreAnswer,
	SessionDetail,
	SessionSearchHit,
	SessionSummary,
	ThinkingLevel,
	TraceDamage,
	UsageGroup,
	UsageGroupBy,
	WorkflowStatus,
	WorkflowView,
} from "./server-types.js";

/** The Runtime Server's routes the app calls, one function each (docs/protocol.md §3). */

const session = (id: string) => `/chat/sessions/${encodeURIComponent(id)}`;
const workflow = (id: string) => `/workflows/${encodeURIComponent(id)}`;

export const api = {
	sessions: () => callJson<{ sessions: SessionSummary[] }>("/chat/sessions").then((a) => a.sessions),
	createSession: (body: { agentId?: string; workspaceDir?: string }) =>
		callJson<{ id: string }>("/chat/sessions", { method: "POST", json: body }),
	deleteSession: (id: string) => call(session(id), { method: "DELETE" }),
	/** Sessions whose title or messages hold `q` (the server reads the newest 200 Sessions' messages). */
	searchSessions: (q: string) =>
		callJson<{ sessions: SessionSearchHit[] }>(`/chat/sessions?q=${encodeURIComponent(q)}`).then((a) => a.sessions),
	rename: (id: string, title: string) => callJson<SessionSummary>(session(id), { method: "PATCH", json: { title } }),
	pending: (id: string) =>
		callJson<{ pendingConfirmations: PendingConfirmation[] }>(`${session(id)}?limit=0`).then(
			(a) => a.pendingConfirmations,
		),
	/** Whether the Session has any message yet (its first, if any, from the Trace). */
	hasMessages: (id: string) =>
		callJson<{ messages: unknown[] }>(`${session(id)}?limit=1`).then((a) => a.messages.length > 0),
	/** Starts a Task; its messages arrive on the tab's event stream, not in this answer. */
	send: (id: string, text: string, thinkingLevel?: ThinkingLevel) =>
		call(`${session(id)}/messages`, {
			method: "POST",
			json: { text, ...(thinkingLevel === undefined ? {} : { thinkingLevel }) },
			headers: { prefer: "respond-async" },
		}),
	steer: (id: string, text: string) =>
		callJson<{ accepted: boolean }>(`${session(id)}/steer`, { method: "POST", json: { text } }),
	abort: (id: string) => callJson<{ aborted: boolean }>(`${session(id)}/abort`, { method: "POST" }),
	retryNow: (id: string) => callJson<{ skipped: boolean }>(`${session(id)}/retry-now`, { method: "POST" }),
	answer: (id: string, correlationId: string, decision: "allow" | "deny", always: boolean) =>
		callJson<{ ok: true }>(`${session(id)}/ask-user-response`, {
			method: "POST",
			json: { correlationId, decision, ...(always ? { always: true } : {}) },
		}),
	workflows: () => callJson<{ workflows: WorkflowView[] }>("/workflows").then((a) => a.workflows),
	/** A workflow's decision is durable and waits for `resumeWorkflow` (docs/protocol.md §5.7). */
	approveWorkflow: (id: string, correlationId: string, decision: "allow" | "deny") =>
		callJson<{ status: WorkflowStatus }>(`${workflow(id)}/approve`, {
			method: "POST",
			json: { correlationId, decision },
		}),
	resumeWorkflow: (id: string) => callJson<{ status: WorkflowStatus }>(`${workflow(id)}/resume`, { method: "POST" }),
	cancelWorkflow: (id: string) => callJson<{ status: WorkflowStatus }>(`${workflow(id)}/cancel`, { method: "POST" }),
	compactability: (id: string) =>
		callJson<{ compactability: string }>(`${session(id)}/compactability`).then((a) => a.compactability),
	/**
	 * Starts a compaction. The answer is its SSE stream; the tab's event stream carries the same
	 * messages, so this stops reading at once (a reader going away never stops the work).
	 */
	compact: async (id: string) => {
		const response = await call(`${session(id)}/compact`, { method: "POST" });
		await response.body?.cancel();
	},
	title: (id: string) => callJson<{ title: string }>(`${session(id)}/title`, { method: "POST" }).then((a) => a.title),
	/** The damaged lines of the Session's Trace (none: an empty list). */
	traceDamage: (id: string) =>
		callJson<{ traceDamage?: TraceDamage[] }>(`${session(id)}?limit=0`).then((a) => a.traceDamage ?? []),
	detail: (id: string) => callJson<{ session: SessionDetail }>(`${session(id)}?limit=0`).then((a) => a.session),
	reloadInstructions: (id: string) =>
		callJson<{ instructions: SessionDetail["instructions"] }>(`${session(id)}/instructions/reload`, {
			method: "POST",
			json: {},
		}),
	restore: (id: string, checkpointId: string, overwrite = false) =>
		callJson<RestoreAnswer>(`${session(id)}/checkpoints/${encodeURIComponent(checkpointId)}/restore`, {
			method: "POST",
			json: overwrite ? { overwrite } : {},
		}),
	filesChanged: (id: string) => callJson<{ files: FileChange[] }>(`${session(id)}/files-changed`).then((a) => a.files),
	rewind: (id: string, seq: number, files: boolean) =>
		callJson<{ rewound: { toSeq: number } }>(`${session(id)}/rewind`, { method: "POST", json: { seq, files } }),
	fork: (id: string, seq: number) => callJson<{ id: string }>(`${session(id)}/fork`, { method: "POST", json: { seq } }),
	dismissLock: (id: string) => call(`${session(id)}/lock`, { method: "DELETE" }),
	agents: () => callJson<AgentsAnswer>("/agents"),
	credentials: () => callJson<{ credentials: CredentialInfo[] }>("/credentials").then((a) => a.credentials),
	setCredential: (name: string, value: string) =>
		call(`/credentials/${encodeURIComponent(name)}`, { method: "PUT", json: { value } }),
	usage: (groupBy: UsageGroupBy) => callJson<{ rows: UsageGroup[] }>(`/usage?groupBy=${groupBy}`).then((a) => a.rows),
};

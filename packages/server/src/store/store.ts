import type { Usage } from "@omniloop/core";
import type { Expression, SqlBool } from "kysely";
import type { WorkflowStore } from "../workflows/workflow-store.js";

/** A Session as the index knows it (its messages live in its Trace files). */
export interface StoredSession {
	id: string;
	agentId: string;
	model: string;
	workspaceDir: string;
	title: string | null;
	createdAt: number;
	updatedAt: number;
	/** The credential whose refusal locked the Session, or null. */
	lockCredential: string | null;
}

/** One `token_usage` event, as billing history. */
export interface UsageRow extends Usage {
	sessionId: string;
	seq: number;
	agentId: string;
	model: string;
	ts: number;
}

export type UsageGroupBy = "day" | "model" | "session" | "agent";

/** Sums of usage rows for one group key and one model (cost is priced per model). */
export interface UsageSum extends Usage {
	key: string;
	model: string;
	requests: number;
}

export type RecordedDecision = "allow" | "deny" | "interrupted";

export interface StoredConfirmation {
	correlationId: string;
	sessionId: string;
	callId: string;
	name: string;
	arguments: string;
	requestedAt: number;
	decision: RecordedDecision | null;
	decidedAt: number | null;
}

export interface UsageQuery {
	sessionId?: string | undefined;
	from?: number | undefined;
	to?: number | undefined;
}

/**
 * A condition a write carries in its own statement (a Task's claim on its Session, docs/cluster.md):
 * the write does nothing when it is false. Undefined: none.
 */
export type WriteFence = Expression<SqlBool> | undefined;

/**
 * Everything the server keeps besides the Traces. One interface; SQLite is the first
 * implementation, Postgres the second on the same schema and migrations.
 */
export interface Store {
	putSession(session: StoredSession): Promise<void>;
	getSession(id: string): Promise<StoredSession | undefined>;
	/** Newest first. */
	listSessions(): Promise<StoredSession[]>;
	updateSession(
		id: string,
		change: Partial<Pick<StoredSession, "title" | "updatedAt" | "lockCredential">>,
		fence?: WriteFence,
	): Promise<void>;
	deleteSession(id: string): Promise<void>;

	/** Idempotent: a row already stored for (sessionId, seq) is kept. */
	addUsage(row: UsageRow): Promise<void>;
	/** The highest seq of the Session's usage rows; 0 when it has none. */
	lastUsageSeq(sessionId: string): Promise<number>;
	usageRows(query: UsageQuery): Promise<UsageRow[]>;
	usageSums(query: UsageQuery, groupBy: UsageGroupBy): Promise<UsageSum[]>;

	addConfirmation(confirmation: Omit<StoredConfirmation, "decision" | "decidedAt">, fence?: WriteFence): Promise<void>;
	getConfirmation(correlationId: string): Promise<StoredConfirmation | undefined>;
	/**
	 * Records the decision if none is recorded yet. Returns the decision that stands: the new one,
	 * or the one recorded before (first decision wins).
	 */
	decideConfirmation(
		correlationId: string,
		decision: RecordedDecision,
		at: number,
		fence?: WriteFence,
	): Promise<RecordedDecision>;
	/** Undecided confirmations of a Session, in the order they were asked. */
	pendingConfirmations(sessionId: string): Promise<StoredConfirmation[]>;
	/** Marks every undecided confirmation `interrupted` (its Task died with the process): returns how many. */
	interruptPendingConfirmations(at: number, sessionId?: string): Promise<number>;

	setCredential(name: string, value: string, at: number): Promise<void>;
	/** Stored credential values by name. Never leaves the server. */
	credentials(): Promise<Map<string, string>>;

	/** Workflows and their approvals (docs/protocol.md §5.8), on the same database. */
	readonly workflows: WorkflowStore;

	close(): Promise<void>;
}

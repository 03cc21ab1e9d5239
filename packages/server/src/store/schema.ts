import type { WorkflowTables } from "../workflows/workflow-tables.js";

/**
 * The store's tables, as Kysely sees them. Written for both dialects: text keys, integer
 * milliseconds (`bigint`), no SQLite- or Postgres-only types, so Postgres is a second dialect on
 * the same migrations.
 */
export interface Database extends WorkflowTables {
	sessions: SessionsTable;
	usage_rows: UsageRowsTable;
	confirmations: ConfirmationsTable;
	credentials: CredentialsTable;
}

export interface SessionsTable {
	id: string;
	agent_id: string;
	model: string;
	workspace_dir: string;
	title: string | null;
	created_at: number;
	updated_at: number;
	/** The credential whose refusal locked the Session (`lock: { reason: "auth" }`), or null. */
	lock_credential: string | null;
}

export interface UsageRowsTable {
	session_id: string;
	seq: number;
	agent_id: string;
	model: string;
	ts: number;
	/** `YYYY-MM-DD` (UTC) of `ts`, computed on insert so grouping by day is plain SQL on both dialects. */
	day: string;
	input: number;
	output: number;
	cache_read: number;
	cache_write: number;
	reasoning: number;
	total: number;
}

export interface ConfirmationsTable {
	correlation_id: string;
	session_id: string;
	call_id: string;
	name: string;
	arguments: string;
	requested_at: number;
	/** null while pending; `allow`/`deny` once answered; `interrupted` when the Task ended first. */
	decision: string | null;
	decided_at: number | null;
	/** Insertion order, so a Session's pending list comes back in call order. */
	position: number;
}

export interface CredentialsTable {
	name: string;
	value: string;
	updated_at: number;
}

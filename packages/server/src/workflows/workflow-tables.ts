import { type Kysely, type Migration, sql } from "kysely";

/** A workflow: one Session, its steps, where it stands. */
export interface WorkflowsTable {
	id: string;
	/** The named workflow of omniloop.yaml, or null for a plain `{ agentId, input }` one. */
	name: string | null;
	session_id: string;
	/** `running`, `waiting_approval`, `ready`, `completed`, `failed` or `cancelled`. */
	status: string;
	input: string;
	/** JSON: the steps it runs (a plain workflow is one agent step whose prompt is the input). */
	steps: string;
	/** The index of the step that runs or waits. */
	step: number;
	/** JSON: each finished step's answer, by index. */
	answers: string;
	/** The Session's last seq when the current step's Task began: a `done` after it ends that step. */
	step_started_seq: number;
	approval_timeout_ms: number | null;
	/** JSON: `{ text }` once completed. */
	result: string | null;
	error: string | null;
	created_at: number;
	updated_at: number;
}

/** One question to a person: a tool call of the workflow's Task, or a gate step. */
export interface WorkflowApprovalsTable {
	correlation_id: string;
	workflow_id: string;
	/** `call` (a tool call the engine asks about) or `gate` (an approval step). */
	kind: string;
	call_id: string;
	name: string;
	arguments: string;
	requested_at: number;
	expires_at: number | null;
	/** null while undecided; `allow` or `deny`. */
	decision: string | null;
	/** `user` or `timeout`. */
	decided_by: string | null;
	decided_at: number | null;
	/** 1 once a resume handed the decision to the Task: only then does the engine learn it. */
	released: number;
	/** Insertion order, so pending approvals come back in call order. */
	position: number;
}

export interface WorkflowTables {
	workflows: WorkflowsTable;
	workflow_approvals: WorkflowApprovalsTable;
}

/** The workflow tables, a migration of their own after the initial schema. Portable types only. */
export const workflowsMigration: Migration = {
	async up(db: Kysely<unknown>) {
		await db.schema
			.createTable("workflows")
			.addColumn("id", "text", (c) => c.primaryKey())
			.addColumn("name", "text")
			.addColumn("session_id", "text", (c) => c.notNull())
			.addColumn("status", "text", (c) => c.notNull())
			.addColumn("input", "text", (c) => c.notNull())
			.addColumn("steps", "text", (c) => c.notNull())
			.addColumn("step", "bigint", (c) => c.notNull().defaultTo(sql`0`))
			.addColumn("answers", "text", (c) => c.notNull())
			.addColumn("step_started_seq", "bigint", (c) => c.notNull().defaultTo(sql`0`))
			.addColumn("approval_timeout_ms", "bigint")
			.addColumn("result", "text")
			.addColumn("error", "text")
			.addColumn("created_at", "bigint", (c) => c.notNull())
			.addColumn("updated_at", "bigint", (c) => c.notNull())
			.execute();
		await db.schema.createIndex("workflows_status").on("workflows").column("status").execute();
		await db.schema
			.createTable("workflow_approvals")
			.addColumn("correlation_id", "text", (c) => c.primaryKey())
			.addColumn("workflow_id", "text", (c) => c.notNull())
			.addColumn("kind", "text", (c) => c.notNull())
			.addColumn("call_id", "text", (c) => c.notNull())
			.addColumn("name", "text", (c) => c.notNull())
			.addColumn("arguments", "text", (c) => c.notNull())
			.addColumn("requested_at", "bigint", (c) => c.notNull())
			.addColumn("expires_at", "bigint")
			.addColumn("decision", "text")
			.addColumn("decided_by", "text")
			.addColumn("decided_at", "bigint")
			.addColumn("released", "integer", (c) => c.notNull().defaultTo(sql`0`))
			.addColumn("position", "bigint", (c) => c.notNull())
			.execute();
		await db.schema
			.createIndex("workflow_approvals_workflow")
			.on("workflow_approvals")
			.columns(["workflow_id", "position"])
			.execute();
	},
};

/**
 * Whether a Session is a workflow's is asked before every chat message, answer and compaction
 * (WorkflowRunner.refuseChat): without this index that was a scan of every workflow ever run.
 */
export const workflowsBySessionMigration: Migration = {
	async up(db: Kysely<unknown>) {
		await db.schema.createIndex("workflows_session").on("workflows").column("session_id").execute();
	},
};

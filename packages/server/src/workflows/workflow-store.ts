import { type Expression, type Kysely, type Selectable, type SqlBool, sql } from "kysely";
import { QueryTemplate } from "../store/query-template.js";
import type { WorkflowApprovalsTable, WorkflowsTable, WorkflowTables } from "./workflow-tables.js";
import type {
	DecidedBy,
	Decision,
	StoredApproval,
	StoredWorkflow,
	WorkflowStatus,
	WorkflowStep,
} from "./workflow-types.js";

export type WorkflowChange = Partial<
	Pick<StoredWorkflow, "status" | "step" | "answers" | "stepStartedSeq" | "result" | "error" | "updatedAt">
>;

/** Workflows whose approvals one listing query reads. */
const APPROVALS_PER_QUERY = 500;
/** The answer to a decision: it is the one that stands, or an earlier one does. */
export type DecideOutcome = { kind: "decided" } | { kind: "already"; decision: Decision; by: DecidedBy };

/**
 * Workflows and their approvals, on the store's database (same dialect, same file). Every decision
 * is a conditional update: of two racing (a person and a deadline), exactly one changes the row.
 */
export class WorkflowStore {
	/** Keeps approvals in the order they were asked, even within one millisecond. */
	private position = Date.now() * 1000;

	/** Every chat message asks it (`refuseChat`): built once (store/query-template.ts). */
	private readonly bySessionQuery: QueryTemplate<{ sessionId: string }>;

	constructor(private readonly db: Kysely<WorkflowTables>) {
		this.bySessionQuery = new QueryTemplate<{ sessionId: string }>((slot) =>
			db.selectFrom("workflows").selectAll().where("session_id", "=", slot("sessionId")),
		);
	}

	async insert(workflow: StoredWorkflow): Promise<void> {
		await this.db.insertInto("workflows").values(toRow(workflow)).execute();
	}

	async get(id: string): Promise<StoredWorkflow | undefined> {
		const row = await this.db.selectFrom("workflows").selectAll().where("id", "=", id).executeTakeFirst();
		return row === undefined ? undefined : fromRow(row);
	}

	/** Newest first. */
	async list(status?: WorkflowStatus): Promise<StoredWorkflow[]> {
		let query = this.db.selectFrom("workflows").selectAll();
		if (status !== undefined) query = query.where("status", "=", status);
		const rows = await query.orderBy("created_at", "desc").orderBy("id").execute();
		return rows.map(fromRow);
	}

	/** The workflow a Session runs, if it runs one. */
	async bySession(sessionId: string): Promise<StoredWorkflow | undefined> {
		const { rows } = await this.db.executeQuery<Selectable<WorkflowsTable>>(this.bySessionQuery.bind({ sessionId }));
		const row = rows[0];
		return row === undefined ? undefined : fromRow(row);
	}

	/**
	 * Changes the workflow's row; with `onlyIf`, only while that holds in the same statement (a
	 * driver's fence, docs/cluster.md). Answers whether the row changed.
	 */
	async update(id: string, change: WorkflowChange, onlyIf?: Expression<SqlBool>): Promise<boolean> {
		const set: Partial<WorkflowsTable> = {};
		if (change.status !== undefined) set.status = change.status;
		if (change.step !== undefined) set.step = change.step;
		if (change.answers !== undefined) set.answers = JSON.stringify(change.answers);
		if (change.stepStartedSeq !== undefined) set.step_started_seq = change.stepStartedSeq;
		if (change.result !== undefined) set.result = change.result === null ? null : JSON.stringify(change.result);
		if (change.error !== undefined) set.error = change.error;
		set.updated_at = change.updatedAt ?? Date.now();
		let query = this.db.updateTable("workflows").set(set).where("id", "=", id);
		if (onlyIf !== undefined) query = query.where(onlyIf);
		const result = await query.executeTakeFirst();
		return result.numUpdatedRows > 0n;
	}

	/**
	 * Records a question once (a repeat, e.g. the same call asked again after a restart, keeps the
	 * first). With `onlyIf` (a driver's fence), only while that holds in the same statement. Answers
	 * whether the question is in the store now: false only when the fence refused it.
	 */
	async addApproval(
		approval: Omit<StoredApproval, "decision" | "decidedBy" | "decidedAt" | "released">,
		onlyIf?: Expression<SqlBool>,
	): Promise<boolean> {
		const row = this.approvalRow(approval, { decision: null, decidedBy: null, decidedAt: null });
		if (onlyIf === undefined) {
			await this.db
				.insertInto("workflow_approvals")
				.values(row)
				.onConflict((oc) => oc.column("correlation_id").doNothing())
				.execute();
			return true;
		}
		// insert … select … where: the fence and the row in one statement (Postgres: a cluster's store).
		const result = await sql`insert into workflow_approvals (correlation_id, workflow_id, kind, call_id, name,
			arguments, requested_at, expires_at, decision, decided_by, decided_at, released, position)
			select ${row.correlation_id}, ${row.workflow_id}, ${row.kind}, ${row.call_id}, ${row.name}, ${row.arguments},
				${row.requested_at}, ${row.expires_at}, null, null, null, 0, ${row.position}
			where ${onlyIf}
			on conflict (correlation_id) do nothing`.execute(this.db);
		if ((result.numAffectedRows ?? 0n) > 0n) return true;
		return (await this.approval(approval.correlationId)) !== undefined;
	}

	/**
	 * A person's decision for a question the event log holds but the store did not record yet (its
	 * driver's write is on its way): the question and its decision in one row. Answers false when
	 * the question was recorded meanwhile (then `decide` as usual).
	 */
	async addDecided(
		approval: Omit<StoredApproval, "decidedBy" | "decidedAt" | "released" | "decision">,
		decision: Decision,
		by: DecidedBy,
		at: number,
	): Promise<boolean> {
		const result = await this.db
			.insertInto("workflow_approvals")
			.values(this.approvalRow(approval, { decision, decidedBy: by, decidedAt: at }))
			.onConflict((oc) => oc.column("correlation_id").doNothing())
			.executeTakeFirst();
		return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
	}

	/** A `workflow_approvals` row of a question (not released), with its decision if it has one. */
	private approvalRow(
		approval: Omit<StoredApproval, "decision" | "decidedBy" | "decidedAt" | "released">,
		decided: Pick<StoredApproval, "decision" | "decidedBy" | "decidedAt">,
	) {
		return {
			correlation_id: approval.correlationId,
			workflow_id: approval.workflowId,
			kind: approval.kind,
			call_id: approval.callId,
			name: approval.name,
			arguments: approval.arguments,
			requested_at: approval.requestedAt,
			expires_at: approval.expiresAt,
			decision: decided.decision,
			decided_by: decided.decidedBy,
			decided_at: decided.decidedAt,
			released: 0,
			position: ++this.position,
		};
	}

	async approval(correlationId: string): Promise<StoredApproval | undefined> {
		const row = await this.db
			.selectFrom("workflow_approvals")
			.selectAll()
			.where("correlation_id", "=", correlationId)
			.executeTakeFirst();
		return row === undefined ? undefined : fromApprovalRow(row);
	}

	/** A workflow's approvals, in the order they were asked. */
	async approvals(workflowId: string): Promise<StoredApproval[]> {
		const rows = await this.db
			.selectFrom("workflow_approvals")
			.selectAll()
			.where("workflow_id", "=", workflowId)
			.orderBy("position")
			.execute();
		return rows.map(fromApprovalRow);
	}

	/** The approvals of many workflows in one query (a listing), each workflow's in the order they were asked. */
	async approvalsOf(workflowIds: readonly string[]): Promise<Map<string, StoredApproval[]>> {
		const byWorkflow = new Map<string, StoredApproval[]>(workflowIds.map((id) => [id, []]));
		// In slices: both databases cap the parameters of one statement.
		for (let i = 0; i < workflowIds.length; i += APPROVALS_PER_QUERY) {
			const rows = await this.db
				.selectFrom("workflow_approvals")
				.selectAll()
				.where("workflow_id", "in", workflowIds.slice(i, i + APPROVALS_PER_QUERY))
				.orderBy("workflow_id")
				.orderBy("position")
				.execute();
			for (const row of rows) byWorkflow.get(row.workflow_id)?.push(fromApprovalRow(row));
		}
		return byWorkflow;
	}

	async decide(correlationId: string, decision: Decision, by: DecidedBy, at: number): Promise<DecideOutcome> {
		const result = await this.db
			.updateTable("workflow_approvals")
			.set({ decision, decided_by: by, decided_at: at })
			.where("correlation_id", "=", correlationId)
			.where("decision", "is", null)
			.executeTakeFirst();
		if (Number(result.numUpdatedRows) === 1) return { kind: "decided" };
		const stored = await this.approval(correlationId);
		return { kind: "already", decision: stored?.decision ?? decision, by: stored?.decidedBy ?? by };
	}

	/** A resume: every decision so far goes to the Task (with `onlyIf`, only while that holds). */
	async release(workflowId: string, onlyIf?: Expression<SqlBool>): Promise<void> {
		let query = this.db
			.updateTable("workflow_approvals")
			.set({ released: 1 })
			.where("workflow_id", "=", workflowId)
			.where("decision", "is not", null);
		if (onlyIf !== undefined) query = query.where(onlyIf);
		await query.execute();
	}

	/**
	 * A question the Task no longer asks (the process died before its Trace held it): it leaves the
	 * list; with `onlyIf`, only while that holds. Answers false when the fence kept it.
	 */
	async dropApproval(correlationId: string, onlyIf?: Expression<SqlBool>): Promise<boolean> {
		let query = this.db.deleteFrom("workflow_approvals").where("correlation_id", "=", correlationId);
		if (onlyIf !== undefined) query = query.where(onlyIf);
		const result = await query.executeTakeFirst();
		return result.numDeletedRows > 0n || (await this.approval(correlationId)) === undefined;
	}
}

function toRow(workflow: StoredWorkflow): WorkflowsTable {
	return {
		id: workflow.id,
		name: workflow.name,
		session_id: workflow.sessionId,
		status: workflow.status,
		input: workflow.input,
		steps: JSON.stringify(workflow.steps),
		step: workflow.step,
		answers: JSON.stringify(workflow.answers),
		step_started_seq: workflow.stepStartedSeq,
		approval_timeout_ms: workflow.approvalTimeoutMs,
		result: workflow.result === null ? null : JSON.stringify(workflow.result),
		error: workflow.error,
		created_at: workflow.createdAt,
		updated_at: workflow.updatedAt,
	};
}

function fromRow(row: Selectable<WorkflowsTable>): StoredWorkflow {
	return {
		id: row.id,
		name: row.name,
		sessionId: row.session_id,
		status: row.status as WorkflowStatus,
		input: row.input,
		steps: JSON.parse(row.steps) as WorkflowStep[],
		step: Number(row.step),
		answers: JSON.parse(row.answers) as string[],
		stepStartedSeq: Number(row.step_started_seq),
		approvalTimeoutMs: row.approval_timeout_ms === null ? null : Number(row.approval_timeout_ms),
		result: row.result === null ? null : (JSON.parse(row.result) as { text: string }),
		error: row.error,
		createdAt: Number(row.created_at),
		updatedAt: Number(row.updated_at),
	};
}

function fromApprovalRow(row: Selectable<WorkflowApprovalsTable>): StoredApproval {
	return {
		correlationId: row.correlation_id,
		workflowId: row.workflow_id,
		kind: row.kind as StoredApproval["kind"],
		callId: row.call_id,
		name: row.name,
		arguments: row.arguments,
		requestedAt: Number(row.requested_at),
		expiresAt: row.expires_at === null ? null : Number(row.expires_at),
		decision: row.decision as Decision | null,
		decidedBy: row.decided_by as DecidedBy | null,
		decidedAt: row.decided_at === null ? null : Number(row.decided_at),
		released: Number(row.released) === 1,
	};
}

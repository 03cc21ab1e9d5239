import { type Expression, type SqlBool, sql } from "kysely";
import type { HeldWork } from "../../coordination/coordinator.js";
import { LeaseLostError, type Leases } from "./leases.js";

/** Workflow leases share the Sessions' table under this prefix. */
const WORKFLOW_KEY = "workflow:";

/** The lease key of a workflow (`workflow:<id>`), beside the Sessions' ids in the leases table. */
const workflowLeaseKey = (workflowId: string): string => `${WORKFLOW_KEY}${workflowId}`;

/** Is the lease key a workflow's (not a Session's)? */
export const isWorkflowKey = (key: string): boolean => key.startsWith(WORKFLOW_KEY);

/** The held lease keys as what they hold: Sessions whose Task runs, workflows driven. */
export function heldWork(keys: Iterable<string>): HeldWork {
	const sessions = new Set<string>();
	const workflows = new Set<string>();
	for (const key of keys) {
		if (isWorkflowKey(key)) workflows.add(key.slice(WORKFLOW_KEY.length));
		else sessions.add(key);
	}
	return { sessions, workflows };
}

/**
 * A workflow's lease (same table, key `workflow:<id>`): the process that takes up a workflow
 * holds it while the workflow is unfinished, so a dead process's workflows are taken up by
 * exactly one living one once it expires, and the others answer 409 `invalid_state`.
 */
export class WorkflowLeases {
	constructor(private readonly leases: Leases) {}

	async hold(workflowId: string): Promise<boolean> {
		return (await this.leases.claim(workflowLeaseKey(workflowId))) !== undefined;
	}

	/** Does this process still hold the workflow's lease (not lost to a database outage)? */
	holds(workflowId: string): boolean {
		return this.leases.holds(workflowLeaseKey(workflowId));
	}

	release(workflowId: string): Promise<void> {
		return this.leases.release(workflowLeaseKey(workflowId));
	}

	/** Its lease row still has this process's epoch, read `for key share` as the event log's rows are. */
	fence(workflowId: string): Expression<SqlBool> {
		const key = workflowLeaseKey(workflowId);
		const epoch = this.leases.epoch(key);
		if (epoch === undefined) throw new LeaseLostError(key);
		return sql<SqlBool>`exists (select 1 from session_leases where session_id = ${key} and epoch = ${epoch} for key share)`;
	}
}

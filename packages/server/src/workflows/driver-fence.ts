import type { Expression, SqlBool } from "kysely";
import { LeaseLostError } from "../cluster/leases.js";
import type { WorkflowContext } from "./workflow-context.js";

/**
 * The condition every write of a workflow's state by its driver carries in its statement
 * (`Coordinator.workflowFence`; undefined alone). Throws `LeaseLostError` when this process
 * knows it lost the workflow already.
 */
export function driverFence(ctx: WorkflowContext, workflowId: string): Expression<SqlBool> | undefined {
	return ctx.host.coordinator.workflowFence(workflowId);
}

/**
 * A driver's write was refused by the database: another process drives the workflow now. The
 * workflow's Task here stops (its own writes are refused under its Session's lease too), and the
 * caller throws what this returns, so nothing more of the workflow is decided here.
 */
export async function refused(ctx: WorkflowContext, workflowId: string): Promise<LeaseLostError> {
	if (ctx.live.has(workflowId)) {
		const workflow = await ctx.store.get(workflowId);
		if (workflow !== undefined) ctx.registry.find(workflow.sessionId)?.abort();
	}
	return new LeaseLostError(`workflow:${workflowId}`);
}

import { LeaseLostError } from "../../cluster/leases/leases.js";
import type { WorkflowContext } from "../workflow-context.js";

/**
 * A driver's write (conditional on `Coordinator.workflowFence`) was refused by the database:
 * another process drives the workflow now. The workflow's Task here stops (its own writes are refused under its Session's lease too), and the
 * caller throws what this returns, so nothing more of the workflow is decided here.
 */
export async function refused(ctx: WorkflowContext, workflowId: string): Promise<LeaseLostError> {
	if (ctx.live.has(workflowId)) {
		const workflow = await ctx.store.get(workflowId);
		if (workflow !== undefined) ctx.registry.find(workflow.sessionId)?.abort();
	}
	return new LeaseLostError(`workflow:${workflowId}`);
}

import { HttpError } from "../../errors.js";
import type { WorkflowContext } from "../workflow-context.js";

/**
 * Which process drives a workflow: the one holding it (`Coordinator.holdWorkflow`; with several
 * processes on one Postgres a lease, key `workflow:<id>`, renewed like a Session's), from the
 * moment it starts, resumes or takes up the workflow until nothing of it runs there any more —
 * between one step's Task and the next too, when no Session lease shows it. A living process
 * takes up only workflows no one drives (see takeover.ts). Alone, a process drives them all.
 */
export async function drive(ctx: WorkflowContext, workflowId: string): Promise<boolean> {
	return ctx.live.has(workflowId) || ctx.host.coordinator.holdWorkflow(workflowId);
}

/** `drive`, or 409 when another live process drives the workflow. */
export async function mustDrive(ctx: WorkflowContext, workflowId: string): Promise<void> {
	if (!(await drive(ctx, workflowId))) {
		throw new HttpError("invalid_state", `workflow ${workflowId} is held by another server process: ask that one`);
	}
}

/**
 * Does this process still drive the workflow? False once its lease was lost (the database was
 * out of reach for longer than a lease): another process may have taken it up, and what this one
 * saw of its Task no longer decides the workflow.
 */
export function drivesHere(ctx: WorkflowContext, workflowId: string): boolean {
	return ctx.host.coordinator.holdsWorkflow(workflowId);
}

/** The workflow is let go once no Task of it runs here (its next step may have started one). */
export async function letGo(ctx: WorkflowContext, workflowId: string): Promise<void> {
	if (ctx.live.has(workflowId)) return;
	await ctx.host.coordinator.releaseWorkflow(workflowId).catch((error: unknown) => ctx.host.report(error));
}

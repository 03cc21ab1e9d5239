import type { ApproveFn, ApproveResult } from "@omniloop/core";
import { answerOf } from "./approval-waits.js";
import type { WorkflowContext } from "./workflow-context.js";
import type { StoredApproval, StoredWorkflow, WorkflowStatus } from "./workflow-types.js";
import { FINISHED } from "./workflow-types.js";

export type Question = Pick<StoredApproval, "kind" | "correlationId" | "callId" | "name" | "arguments" | "requestedAt">;

/**
 * Records a question once, durably, with its deadline (from when it was first asked, so a
 * restart keeps it), arms the deadline and updates the status. Called under the workflow's lock.
 */
export async function ask(ctx: WorkflowContext, workflow: StoredWorkflow, question: Question): Promise<void> {
	const expiresAt = workflow.approvalTimeoutMs === null ? null : question.requestedAt + workflow.approvalTimeoutMs;
	await ctx.store.addApproval({ ...question, workflowId: workflow.id, expiresAt });
	const stored = await ctx.store.approval(question.correlationId);
	if (stored !== undefined && stored.decision === null && stored.expiresAt !== null) {
		ctx.deadlines.arm(stored.correlationId, stored.expiresAt, () => ctx.expire(workflow.id, stored.correlationId));
	}
	await settle(ctx, workflow.id);
}

/**
 * The status the approvals imply for a workflow that has not finished: `waiting_approval` while
 * one is undecided, `ready` once all are decided and some not yet resumed, else `running`.
 * Called under the workflow's lock.
 */
export async function settle(ctx: WorkflowContext, workflowId: string): Promise<WorkflowStatus | undefined> {
	const workflow = await ctx.store.get(workflowId);
	if (workflow === undefined || FINISHED.has(workflow.status)) return workflow?.status;
	const approvals = await ctx.store.approvals(workflowId);
	const status: WorkflowStatus = approvals.some((a) => a.decision === null)
		? "waiting_approval"
		: approvals.some((a) => !a.released)
			? "ready"
			: "running";
	if (status !== workflow.status) await ctx.store.update(workflowId, { status });
	return status;
}

/**
 * The workflow Task's `approve`: the call is pending (durably) until a person decides and the
 * workflow is resumed; a decision already released (asked again after a restart) answers at once.
 */
export function approveFor(ctx: WorkflowContext, workflow: StoredWorkflow): ApproveFn {
	return async (call, { signal, correlationId }) => {
		const { answer } = await ctx.lock.run(workflow.id, async (): Promise<{ answer: Promise<ApproveResult> }> => {
			await ask(ctx, workflow, {
				kind: "call",
				correlationId,
				callId: call.callId,
				name: call.name,
				arguments: call.arguments,
				requestedAt: Date.now(),
			});
			// Shutting down: the question stays open, for the next process to ask again.
			if (ctx.closing) return { answer: new Promise<ApproveResult>(() => {}) };
			const stored = await ctx.store.approval(correlationId);
			if (stored?.decision != null && stored.released) return { answer: Promise.resolve(answerOf(stored)) };
			if ((await ctx.store.get(workflow.id))?.status === "cancelled") return { answer: Promise.resolve("deny") };
			// Registered under the lock, so a resume cannot slip between the check and the wait.
			return { answer: ctx.waits.wait(workflow.id, correlationId, signal) };
		});
		return answer;
	};
}

/** A finished workflow's deadlines are void. */
export async function clearDeadlines(ctx: WorkflowContext, workflowId: string): Promise<void> {
	for (const approval of await ctx.store.approvals(workflowId)) ctx.deadlines.clear(approval.correlationId);
}

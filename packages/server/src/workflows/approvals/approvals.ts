import type { ApproveFn, ApproveResult } from "@omniloop/core";
import { sql } from "kysely";
import { refused } from "../driving/driver-fence.js";
import type { WorkflowContext } from "../workflow-context.js";
import type { Decision, StoredApproval, StoredWorkflow, WorkflowStatus } from "../workflow-types.js";
import { FINISHED } from "../workflow-types.js";
import { answerOf } from "./approval-waits.js";

export type Question = Pick<StoredApproval, "kind" | "correlationId" | "callId" | "name" | "arguments" | "requestedAt">;

/**
 * Records a question once, durably, with its deadline (from when it was first asked, so a
 * restart keeps it), arms the deadline and updates the status. The driver's write: fenced by its
 * lease (docs/cluster.md). Called under the workflow's lock.
 */
export async function ask(ctx: WorkflowContext, workflow: StoredWorkflow, question: Question): Promise<void> {
	const expiresAt = workflow.approvalTimeoutMs === null ? null : question.requestedAt + workflow.approvalTimeoutMs;
	const fence = ctx.host.coordinator.workflowFence(workflow.id);
	if (!(await ctx.store.addApproval({ ...question, workflowId: workflow.id, expiresAt }, fence))) {
		throw await refused(ctx, workflow.id);
	}
	const stored = await ctx.store.approval(question.correlationId);
	if (stored !== undefined && stored.decision === null && stored.expiresAt !== null) {
		ctx.deadlines.arm(stored.correlationId, stored.expiresAt, () => ctx.expire(workflow.id, stored.correlationId));
	}
	await settle(ctx, workflow.id);
}

/**
 * The status the approvals imply for a workflow that has not finished: `waiting_approval` while
 * one is undecided, `ready` once all are decided and some not yet resumed, else `running`.
 * Called under the workflow's lock, by the workflow's driver (its write fenced by its lease, a
 * refusal stops it) or for a person's decision on any process (`by: "person"`: not fenced, so
 * it is recorded whoever drives; conditional on the status it read instead, so it never
 * overwrites what the driver wrote meanwhile — docs/cluster.md).
 */
export async function settle(
	ctx: WorkflowContext,
	workflowId: string,
	by: "driver" | "person" = "driver",
): Promise<WorkflowStatus | undefined> {
	const workflow = await ctx.store.get(workflowId);
	if (workflow === undefined || FINISHED.has(workflow.status)) return workflow?.status;
	const approvals = await ctx.store.approvals(workflowId);
	const status: WorkflowStatus = approvals.some((a) => a.decision === null)
		? "waiting_approval"
		: approvals.some((a) => !a.released)
			? "ready"
			: "running";
	if (status === workflow.status) return status;
	if (by === "person") {
		const unchanged = sql<boolean>`status = ${workflow.status}`;
		return (await ctx.store.update(workflowId, { status }, unchanged))
			? status
			: (await ctx.store.get(workflowId))?.status;
	}
	const fence = ctx.host.coordinator.workflowFence(workflowId);
	if (!(await ctx.store.update(workflowId, { status }, fence)) && fence !== undefined)
		throw await refused(ctx, workflowId);
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
			if (stored?.decision != null && stored.released) {
				settleInChat(ctx, workflow, correlationId, stored.decision);
				return { answer: Promise.resolve(answerOf(stored)) };
			}
			if ((await ctx.store.get(workflow.id))?.status === "cancelled") return { answer: Promise.resolve("deny") };
			// Registered under the lock, so a resume cannot slip between the check and the wait.
			return { answer: ctx.waits.wait(workflow.id, correlationId, signal) };
		});
		return answer;
	};
}

/**
 * A call asked again (its Task continued after a restart) was announced as a chat confirmation;
 * the workflow answers it from the store, so the chat view takes the same decision: not listed as
 * pending while the call runs, nor recorded `interrupted` when the Task ends. Settled in memory
 * only: its row was interrupted when this process started (a restart ends chat waits), and the
 * workflow's approval in the store is the record that stands.
 */
function settleInChat(ctx: WorkflowContext, workflow: StoredWorkflow, correlationId: string, decision: Decision): void {
	ctx.registry.find(workflow.sessionId)?.confirmations.settle(correlationId, decision);
}

/** A finished workflow's deadlines are void. */
export async function clearDeadlines(ctx: WorkflowContext, workflowId: string): Promise<void> {
	for (const approval of await ctx.store.approvals(workflowId)) ctx.deadlines.clear(approval.correlationId);
}

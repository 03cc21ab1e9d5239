import type { ApproveResult } from "@omniloop/core";
import type { StoredApproval } from "../workflow-types.js";

/** What the engine is answered for a decided approval: a deadline's deny is recorded as such (`by: "timeout"`). */
export function answerOf(approval: Pick<StoredApproval, "decision" | "decidedBy">): ApproveResult {
	if (approval.decision === "deny" && approval.decidedBy === "timeout") return { decision: "deny", by: "timeout" };
	return approval.decision ?? "deny";
}

interface Waiter {
	workflowId: string;
	settle: (answer: ApproveResult) => void;
}

/**
 * The `approve` calls of live workflow Tasks that wait for a person's decision and a resume.
 * Only in memory: after a restart the Task is continued and asks again (same correlation ids).
 */
export class ApprovalWaits {
	private readonly waiters = new Map<string, Waiter>();

	/** Settles with the released decision; `signal` firing (the Task aborted) ends the wait as a deny the engine ignores. */
	wait(workflowId: string, correlationId: string, signal: AbortSignal): Promise<ApproveResult> {
		return new Promise((resolve) => {
			const settle = (answer: ApproveResult) => {
				this.waiters.delete(correlationId);
				resolve(answer);
			};
			this.waiters.set(correlationId, { workflowId, settle });
			signal.addEventListener("abort", () => settle("deny"), { once: true });
		});
	}

	/** Hands a released decision to the call waiting on it, if one waits. */
	release(correlationId: string, answer: ApproveResult): void {
		this.waiters.get(correlationId)?.settle(answer);
	}

	/** A cancelled workflow: its waits end as denials (its Task is being aborted). */
	denyAll(workflowId: string): void {
		for (const waiter of [...this.waiters.values()]) if (waiter.workflowId === workflowId) waiter.settle("deny");
	}
}

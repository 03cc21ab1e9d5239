import type { Cluster } from "../cluster/cluster.js";
import { drive, letGo } from "./driving.js";
import { recoverOne } from "./recovery.js";
import type { WorkflowContext } from "./workflow-context.js";
import type { StoredWorkflow } from "./workflow-types.js";

/**
 * With several processes on one Postgres, the workflows a process that died was driving are taken
 * up by a living one, without waiting for a restart. Every lease period each process looks at the
 * unfinished workflows no live process holds (neither their Session's lease nor their own):
 * - a running one is taken up as a restart would (its Task continued from the Trace; a call that
 *   had started gets an interrupted output and is never run again), by the one process that
 *   claims it;
 * - a waiting one gets its approvals' deadlines armed here too; a deadline that fires in two
 *   processes is decided once (the store keeps the first decision), and a resume claims the
 *   workflow first.
 */
export class WorkflowTakeover {
	private readonly timer: NodeJS.Timeout;
	private sweeping = false;

	constructor(
		private readonly ctx: WorkflowContext,
		private readonly cluster: Cluster,
		everyMs: number,
	) {
		this.timer = setInterval(() => void this.sweep(), everyMs);
		this.timer.unref();
	}

	/** One look at the unfinished workflows (one sweep at a time). */
	async sweep(): Promise<void> {
		if (this.sweeping || this.ctx.closing) return;
		this.sweeping = true;
		try {
			for (const workflow of await this.ctx.store.list("running")) await this.takeUp(workflow);
			for (const workflow of await this.ctx.store.list("waiting_approval")) await this.armDeadlines(workflow);
		} catch (error) {
			this.ctx.host.report(error);
		} finally {
			this.sweeping = false;
		}
	}

	close(): void {
		clearInterval(this.timer);
	}

	private async orphaned(workflow: StoredWorkflow): Promise<boolean> {
		if (this.ctx.closing || this.ctx.live.has(workflow.id)) return false;
		return !(await this.cluster.leases.isHeld(workflow.sessionId));
	}

	private async takeUp(workflow: StoredWorkflow): Promise<void> {
		if (!(await this.orphaned(workflow)) || !(await drive(this.ctx, workflow.id))) return;
		try {
			await this.ctx.registry.adopt(workflow.sessionId);
			await this.ctx.registry.get(workflow.sessionId).refresh();
			await this.ctx.lock.run(workflow.id, async () => {
				// Read again under the lock: it may have moved on since the list.
				const current = await this.ctx.store.get(workflow.id);
				if (current?.status === "running" && !this.ctx.live.has(workflow.id)) await recoverOne(this.ctx, current);
			});
		} finally {
			await letGo(this.ctx, workflow.id);
		}
	}

	private async armDeadlines(workflow: StoredWorkflow): Promise<void> {
		if (!(await this.orphaned(workflow))) return;
		for (const approval of await this.ctx.store.approvals(workflow.id)) {
			const { correlationId, expiresAt } = approval;
			if (approval.decision !== null || expiresAt === null || this.ctx.deadlines.has(correlationId)) continue;
			this.ctx.deadlines.arm(correlationId, expiresAt, () => this.ctx.expire(workflow.id, correlationId));
		}
	}
}

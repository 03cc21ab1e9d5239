import type { HeldWork } from "../../coordination/coordinator.js";
import { HttpError } from "../../errors.js";
import { carryOutRecorded, onlyDeadlinesDecided, resume } from "../approvals/decisions.js";
import { continueFromStore } from "../recovery.js";
import { finish } from "../steps.js";
import type { WorkflowContext } from "../workflow-context.js";
import type { StoredApproval, StoredWorkflow, WorkflowStatus } from "../workflow-types.js";
import { drive, letGo } from "./driving.js";

/**
 * With several processes on one Postgres, the workflows a process that died was driving are taken
 * up by a living one, without waiting for a restart (alone, a process never sweeps:
 * `Coordinator.everyLease` never calls it). Every lease period each process looks at the
 * unfinished workflows no live process holds (neither their Session's lease nor their own):
 * - a running one is taken up as a restart would (its Task continued from the Trace; a call that
 *   had started gets an interrupted output and is never run again), by the one process that
 *   claims it;
 * - a waiting one gets its approvals' deadlines armed here too; a deadline that fires in two
 *   processes is decided once (the store keeps the first decision), and a resume claims the
 *   workflow first;
 * - a ready one whose decisions were all deadlines' is resumed (as the deadline would have).
 * And the workflows live here get what was recorded for them elsewhere (a lost notification).
 */
export class WorkflowTakeover {
	private readonly stop: () => void;
	private sweeping = false;

	constructor(private readonly ctx: WorkflowContext) {
		this.stop = ctx.host.coordinator.everyLease(() => void this.sweep());
	}

	/** One look at the unfinished workflows (one sweep at a time; one workflow's failure skips only it). */
	async sweep(): Promise<void> {
		if (this.sweeping || this.ctx.closing) return;
		this.sweeping = true;
		try {
			// A resume or cancel recorded elsewhere whose notification this process missed.
			for (const id of [...this.ctx.live])
				await carryOutRecorded(this.ctx, id).catch((error: unknown) => this.ctx.host.report(error));
			await this.each("running", (workflow) => this.takeUp(workflow));
			await this.each("waiting_approval", (workflow, approvals) => this.armDeadlines(workflow, approvals));
			await this.each("ready", (workflow, approvals) => this.resumeTimedOut(workflow, approvals));
		} finally {
			this.sweeping = false;
		}
	}

	close(): void {
		this.stop();
	}

	/**
	 * `act` on each workflow of `status` no live process holds. Three queries a sweep, whatever
	 * the number of workflows: the list, the live leases, the orphans' approvals.
	 */
	private async each(
		status: WorkflowStatus,
		act: (workflow: StoredWorkflow, approvals: readonly StoredApproval[]) => Promise<void>,
	): Promise<void> {
		let orphans: StoredWorkflow[];
		let approvals: Map<string, StoredApproval[]>;
		try {
			const held = await this.ctx.host.coordinator.held();
			orphans = (await this.ctx.store.list(status)).filter((workflow) => this.orphaned(workflow, held));
			approvals = await this.ctx.store.approvalsOf(orphans.map((workflow) => workflow.id));
		} catch (error) {
			this.ctx.host.report(error);
			return;
		}
		for (const workflow of orphans) {
			try {
				await act(workflow, approvals.get(workflow.id) ?? []);
			} catch (error) {
				this.ctx.host.report(error);
			}
		}
	}

	/** Nothing of it runs here or in another live process: neither its Session nor itself is held. */
	private orphaned(workflow: StoredWorkflow, held: HeldWork): boolean {
		if (this.ctx.closing || this.ctx.live.has(workflow.id)) return false;
		return !held.sessions.has(workflow.sessionId) && !held.workflows.has(workflow.id);
	}

	/**
	 * A running workflow no one drives is taken up here, under its lease. Its Session gone, it
	 * fails saying so; any other error is reported and the next sweep tries again.
	 */
	private async takeUp(workflow: StoredWorkflow): Promise<void> {
		if (!(await drive(this.ctx, workflow.id))) return;
		try {
			await this.ctx.lock.run(workflow.id, async () => {
				// Read again under the lock: it may have moved on since the list.
				const current = await this.ctx.store.get(workflow.id);
				if (current?.status !== "running" || this.ctx.live.has(workflow.id)) return;
				try {
					await this.ctx.registry.adopt(current.sessionId);
					await this.ctx.registry.get(current.sessionId).refresh();
					await continueFromStore(this.ctx, current);
				} catch (error) {
					if (!(error instanceof HttpError)) throw error;
					await finish(this.ctx, current.id, "failed", { error: `it could not be taken up: ${error.message}` });
				}
			});
		} finally {
			await letGo(this.ctx, workflow.id);
		}
	}

	private async armDeadlines(workflow: StoredWorkflow, approvals: readonly StoredApproval[]): Promise<void> {
		for (const approval of approvals) {
			const { correlationId, expiresAt } = approval;
			if (approval.decision !== null || expiresAt === null || this.ctx.deadlines.has(correlationId)) continue;
			this.ctx.deadlines.arm(correlationId, expiresAt, () => this.ctx.expire(workflow.id, correlationId));
		}
	}

	/**
	 * Decided, not resumed, and every decision not yet carried out was a deadline's: the process
	 * that recorded them died before the resume a deadline makes by itself. It is made here.
	 */
	private async resumeTimedOut(workflow: StoredWorkflow, approvals: readonly StoredApproval[]): Promise<void> {
		if (!onlyDeadlinesDecided(approvals)) return;
		await resume(this.ctx, workflow.id).catch((error: unknown) => {
			if (!(error instanceof HttpError)) throw error;
		});
	}
}

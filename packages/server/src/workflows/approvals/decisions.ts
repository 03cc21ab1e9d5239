import { sql } from "kysely";
import { HttpError, notFound } from "../../errors.js";
import { refused } from "../driving/driver-fence.js";
import { letGo, mustDrive } from "../driving/driving.js";
import { cancelled, passGate, runStep } from "../steps.js";
import type { WorkflowContext } from "../workflow-context.js";
import type { DecidedBy, Decision, StoredApproval, StoredWorkflow, WorkflowStatus } from "../workflow-types.js";
import { FINISHED } from "../workflow-types.js";
import { answerOf } from "./approval-waits.js";
import { settle } from "./approvals.js";

async function mustGet(ctx: WorkflowContext, id: string): Promise<StoredWorkflow> {
	const workflow = await ctx.store.get(id);
	if (workflow === undefined) throw notFound(`workflow ${id}`);
	return workflow;
}

/**
 * Is the workflow's Task running or waiting in another live process? Then an action taken here
 * is recorded in the store and carried out there (docs/cluster.md).
 */
async function heldElsewhere(ctx: WorkflowContext, workflow: StoredWorkflow): Promise<boolean> {
	if (ctx.live.has(workflow.id)) return false;
	return ctx.host.coordinator.runsElsewhere(workflow.sessionId);
}

function finishedError(workflow: StoredWorkflow, action: string): HttpError {
	return new HttpError("invalid_state", `workflow ${workflow.id} is ${workflow.status}: nothing to ${action}`);
}

/**
 * A question of the workflow's current step that its Session's event log holds (a
 * `confirmation_required`) and the store does not yet: its driver records it a moment after the
 * row's commit (docs/cluster.md), and a person's decision in that moment is not refused for it.
 */
async function askedInLog(
	ctx: WorkflowContext,
	workflow: StoredWorkflow,
	correlationId: string,
): Promise<StoredApproval | undefined> {
	const hosted = ctx.registry.find(workflow.sessionId);
	if (hosted === undefined) return undefined;
	for (const message of await hosted.log.history(workflow.stepStartedSeq)) {
		if (message.type !== "confirmation_required" || message.correlationId !== correlationId) continue;
		const { callId, name, arguments: args, ts } = message;
		const expiresAt = workflow.approvalTimeoutMs === null ? null : ts + workflow.approvalTimeoutMs;
		return {
			...{ correlationId, workflowId: workflow.id, kind: "call", callId, name, arguments: args, requestedAt: ts },
			...{ expiresAt, decision: null, decidedBy: null, decidedAt: null, released: false },
		};
	}
	return undefined;
}

/** Records a decision durably; the first one stands. Returns the workflow's status after it. */
export function decide(
	ctx: WorkflowContext,
	id: string,
	correlationId: string,
	decision: Decision,
	by: DecidedBy,
): Promise<WorkflowStatus> {
	return ctx.lock.run(id, async (): Promise<WorkflowStatus> => {
		const workflow = await mustGet(ctx, id);
		if (FINISHED.has(workflow.status)) throw finishedError(workflow, "approve");
		const at = Date.now();
		const stored = await ctx.store.approval(correlationId);
		const approval = stored ?? (await askedInLog(ctx, workflow, correlationId));
		if (approval === undefined || approval.workflowId !== id) {
			throw notFound(`approval ${correlationId} of workflow ${id}`);
		}
		// Asked durably (the event log holds it) but not in the store yet: recorded with its decision.
		const recorded = stored === undefined && (await ctx.store.addDecided(approval, decision, by, at));
		const outcome = recorded ? { kind: "decided" as const } : await ctx.store.decide(correlationId, decision, by, at);
		if (outcome.kind === "already") {
			throw new HttpError(
				"already_answered",
				`approval ${correlationId} was already answered: ${outcome.decision} (by ${outcome.by})`,
			);
		}
		ctx.deadlines.clear(correlationId);
		// The status follows the store's write at once: whatever happens to the chat view below,
		// the workflow is never left waiting on a decision it has.
		const status = (await settle(ctx, id, "person")) ?? workflow.status;
		if (approval.kind === "call") await copyToChat(ctx, workflow, correlationId, decision);
		return status;
	});
}

/**
 * The chat view of the Session (its pending confirmations) no longer lists a decided approval
 * either — on the process whose Task waits, wherever that is. Best-effort: the store holds the
 * decision, so a failure here (the Session deleted, that process gone) is reported, not thrown.
 */
async function copyToChat(
	ctx: WorkflowContext,
	workflow: StoredWorkflow,
	correlationId: string,
	decision: Decision,
): Promise<void> {
	try {
		if (await heldElsewhere(ctx, workflow))
			await ctx.host.coordinator.answerElsewhere(workflow.sessionId, correlationId, decision, false);
		else await ctx.registry.find(workflow.sessionId)?.confirmations.decide(correlationId, decision);
	} catch (error) {
		ctx.host.report(error);
	}
}

/**
 * Continues a workflow whose approvals are all decided: the decisions go to its Task — the one
 * waiting in this process, or, after a restart, the same Task continued from its Trace.
 */
export function resume(ctx: WorkflowContext, id: string): Promise<WorkflowStatus> {
	return ctx.lock.run(id, async (): Promise<WorkflowStatus> => {
		const workflow = await mustGet(ctx, id);
		if (workflow.status !== "ready") {
			const why =
				workflow.status === "waiting_approval"
					? `${(await ctx.store.approvals(id)).filter((a) => a.decision === null).length} approval(s) are still undecided`
					: FINISHED.has(workflow.status)
						? "it has finished"
						: "it is already running";
			throw new HttpError("invalid_state", `workflow ${id} is ${workflow.status}: it cannot resume (${why})`);
		}
		if (await heldElsewhere(ctx, workflow)) {
			// Recorded first: the process whose Task waits releases its waits when it hears of it,
			// and if it died meanwhile, the one that takes the workflow up goes on with it released.
			// A person's action, not the driver's write: not fenced, conditional on the status read.
			await ctx.store.release(id);
			await ctx.store.update(id, { status: "running" }, sql<boolean>`status = ${"ready"}`);
			await ctx.host.coordinator.workflowElsewhere(id, "resume");
			return "running";
		}
		await mustDrive(ctx, id);
		try {
			await resumeHere(ctx, workflow);
		} finally {
			await letGo(ctx, id);
		}
		return "running";
	});
}

/** `resume` once this process drives the workflow: its writes fenced by its lease. Under the lock. */
async function resumeHere(ctx: WorkflowContext, workflow: StoredWorkflow): Promise<void> {
	const { id } = workflow;
	const fence = ctx.host.coordinator.workflowFence(id);
	await ctx.store.release(id, fence);
	if (!(await ctx.store.update(id, { status: "running" }, fence)) && fence !== undefined) throw await refused(ctx, id);
	const running = { ...workflow, status: "running" as const };
	const step = workflow.steps[workflow.step];
	if (step !== undefined && "approval" in step) await passGate(ctx, running);
	else if (ctx.live.has(id)) {
		for (const approval of await ctx.store.approvals(id)) {
			if (approval.decision !== null) ctx.waits.release(approval.correlationId, answerOf(approval));
		}
	} else await runStep(ctx, running, "continue");
}

/** Cancels: recorded first (so a crash cannot undo it), then its Task is aborted (`done{user_abort}`). */
export function cancel(ctx: WorkflowContext, id: string): Promise<WorkflowStatus> {
	return ctx.lock.run(id, async (): Promise<WorkflowStatus> => {
		const workflow = await mustGet(ctx, id);
		if (FINISHED.has(workflow.status)) throw finishedError(workflow, "cancel");
		const elsewhere = await heldElsewhere(ctx, workflow);
		await cancelled(ctx, id);
		if (elsewhere) await ctx.host.coordinator.workflowElsewhere(id, "cancel");
		else {
			stopHere(ctx, workflow);
			if (!ctx.live.has(id)) await endWaitingTask(ctx, workflow);
		}
		return "cancelled";
	});
}

/**
 * A cancelled workflow whose Task nothing runs (it waits in its Trace, as after a restart): the
 * Task's end is recorded all the same, `abort` then `done{user_abort}`, as a live Task's abort
 * would record it. Continued under an aborted signal, it decides and runs nothing on the way.
 */
async function endWaitingTask(ctx: WorkflowContext, workflow: StoredWorkflow): Promise<void> {
	const hosted = ctx.registry.find(workflow.sessionId);
	if (hosted === undefined || hosted.running || (await hosted.unfinishedTask()) === undefined) return;
	const signal = AbortSignal.abort(new Error(`workflow ${workflow.id} was cancelled`));
	const { finished } = await hosted.startWork(
		(session) => session.continueTask({ signal }),
		() => false,
	);
	await finished;
}

/** A cancel recorded (here or on another process): the workflow's Task here stops. */
export function stopHere(ctx: WorkflowContext, workflow: StoredWorkflow): void {
	ctx.waits.denyAll(workflow.id);
	if (ctx.live.has(workflow.id)) ctx.registry.get(workflow.sessionId).abort();
}

/**
 * Actions taken on another process for a workflow whose Task runs or waits here, as the store
 * records them: a cancel stops the Task, a resume hands it the decisions it released. Called when
 * a notification says so, and again every lease period, since a notification can be lost (the
 * LISTEN connection down when it was sent): the store is the record, the notification a hint.
 */
export async function carryOutRecorded(ctx: WorkflowContext, id: string): Promise<void> {
	if (!ctx.live.has(id)) return;
	const workflow = await ctx.store.get(id);
	if (workflow === undefined) return;
	if (workflow.status === "cancelled") return stopHere(ctx, workflow);
	if (workflow.status !== "running") return;
	// Released in the store by the process that resumed it: the Task here gets the decisions.
	for (const approval of await ctx.store.approvals(id)) {
		if (approval.released && approval.decision !== null) ctx.waits.release(approval.correlationId, answerOf(approval));
	}
}

/**
 * A deadline passed: the approval becomes a deny recorded as `by: "timeout"`. When that leaves
 * nothing undecided and nobody decided any of it (every decision not yet carried out is a
 * deadline's), nobody is there to resume: the workflow resumes by itself. A decision a person made
 * waits, `ready`, for their resume: a call they allowed runs when they say so.
 */
export async function expire(ctx: WorkflowContext, id: string, correlationId: string): Promise<void> {
	if (ctx.closing) return;
	try {
		const status = await decide(ctx, id, correlationId, "deny", "timeout");
		if (status === "ready" && onlyDeadlinesDecided(await ctx.store.approvals(id))) await resume(ctx, id);
	} catch (error) {
		// A person decided first, or the workflow finished: the deadline is moot.
		if (!(error instanceof HttpError)) ctx.host.report(error);
	}
}

/** Every decision not yet carried out (released) was a deadline's: no person has acted on them. */
export function onlyDeadlinesDecided(approvals: readonly StoredApproval[]): boolean {
	const open = approvals.filter((a) => !a.released && a.decision !== null);
	return open.length > 0 && open.every((a) => a.decidedBy === "timeout");
}

import type { PendingConfirmation } from "@omniloop/core";
import { HttpError } from "../errors.js";
import { ask, settle } from "./approvals/approvals.js";
import { refused } from "./driving/driver-fence.js";
import { drive, letGo } from "./driving/driving.js";
import { applyOutcome, finish, gateId, passGate, runStep, useAgent } from "./steps.js";
import { askedInTrace, outcomeFromTrace } from "./task-outcome.js";
import type { WorkflowContext } from "./workflow-context.js";
import type { StoredWorkflow } from "./workflow-types.js";
import { FINISHED } from "./workflow-types.js";

/**
 * On server start: every workflow a previous process left unfinished is taken up. Waiting ones
 * wait again with the same approvals (the store's, checked against the Trace's unfinished Task);
 * running ones continue by themselves.
 */
export async function recover(ctx: WorkflowContext): Promise<void> {
	for (const workflow of await ctx.store.list()) {
		if (FINISHED.has(workflow.status)) continue;
		// Its Session is outside this server's roots: not this server's to take up (nor to fail).
		if (ctx.registry.hides(workflow.sessionId)) continue;
		// A workflow whose Task another live process runs (or waits in), or that another one
		// drives, is that one's.
		if (await ctx.host.coordinator.runsElsewhere(workflow.sessionId)) continue;
		if (!(await drive(ctx, workflow.id))) continue;
		// The Trace here becomes the shared one before it is read (another home, or an old copy,
		// would misread what ran); when that fails, the workflow is left to the takeover sweep.
		try {
			await ctx.registry.adopt(workflow.sessionId);
			await ctx.registry.find(workflow.sessionId)?.refresh();
		} catch (error) {
			ctx.host.report(error);
			await letGo(ctx, workflow.id);
			continue;
		}
		await ctx.lock.run(workflow.id, () => recoverOne(ctx, workflow)).catch((error: unknown) => ctx.host.report(error));
		await letGo(ctx, workflow.id);
	}
}

/** After a restart: a workflow that cannot be taken up fails, saying why. */
async function recoverOne(ctx: WorkflowContext, workflow: StoredWorkflow): Promise<void> {
	try {
		await continueFromStore(ctx, workflow);
	} catch (error) {
		await finish(ctx, workflow.id, "failed", { error: `it could not be recovered: ${(error as Error).message}` });
	}
}

/**
 * Goes on with an unfinished workflow from the store and its Session's Trace (its Session gone,
 * it fails saying so). Under the workflow's lock, in the process that now drives it.
 */
export async function continueFromStore(ctx: WorkflowContext, workflow: StoredWorkflow): Promise<void> {
	let hosted: ReturnType<WorkflowContext["registry"]["get"]>;
	try {
		hosted = ctx.registry.get(workflow.sessionId);
	} catch (error) {
		if (!(error instanceof HttpError)) throw error;
		return finish(ctx, workflow.id, "failed", { error: `its Session ${workflow.sessionId} is gone` });
	}
	const step = workflow.steps[workflow.step];
	if (step === undefined) return runStep(ctx, workflow, "start");
	if ("approval" in step) {
		if ((await ctx.store.approval(gateId(workflow))) === undefined) return runStep(ctx, workflow, "start");
		await rearm(ctx, workflow, []);
		return (await settle(ctx, workflow.id)) === "running" ? passGate(ctx, workflow) : undefined;
	}
	useAgent(hosted, step.agent);
	const unfinished = await hosted.unfinishedTask();
	if (unfinished === undefined) {
		await rearm(ctx, workflow, []);
		const outcome = outcomeFromTrace(ctx.host.sessions, workflow.sessionId, workflow.stepStartedSeq);
		// Nothing of the step's Task reached the disk: nothing of it ran (tools are written ahead).
		if (outcome === undefined) return runStep(ctx, workflow, "start");
		// A shutdown aborted it (a cancel would have been recorded first): it goes on.
		if (outcome.done?.reason === "user_abort") return runStep(ctx, workflow, "restarted");
		return applyOutcome(ctx, workflow, outcome);
	}
	await rearm(ctx, workflow, unfinished.pendingConfirmations);
	if ((await settle(ctx, workflow.id)) === "running") return runStep(ctx, workflow, "continue");
}

/**
 * The questions the Task still waits on, as its Trace shows them, are pending in the store (one
 * the process recorded in the Trace but not yet in the store is added). A question the store has
 * but the Trace never durably asked (the process died between the two) is dropped, decided or
 * not: the Task asks again, under a new id. Deadlines are armed again. The taker's writes: fenced.
 */
async function rearm(ctx: WorkflowContext, workflow: StoredWorkflow, asked: readonly PendingConfirmation[]) {
	const pendingIds = new Set(asked.map((c) => c.correlationId));
	const inTrace = askedInTrace(ctx.host.sessions, workflow.sessionId);
	const drop = async (correlationId: string): Promise<void> => {
		if (!(await ctx.store.dropApproval(correlationId, ctx.host.coordinator.workflowFence(workflow.id)))) {
			throw await refused(ctx, workflow.id);
		}
	};
	for (const approval of await ctx.store.approvals(workflow.id)) {
		if (approval.kind === "call" && !inTrace.has(approval.correlationId)) {
			await drop(approval.correlationId);
		} else if (approval.decision !== null) {
		} else if (approval.kind === "call" && !pendingIds.has(approval.correlationId)) {
			await drop(approval.correlationId);
		} else if (approval.expiresAt !== null) {
			const { correlationId, expiresAt } = approval;
			ctx.deadlines.arm(correlationId, expiresAt, () => ctx.expire(workflow.id, correlationId));
		}
	}
	for (const confirmation of asked) await ask(ctx, workflow, { kind: "call", ...confirmation });
}

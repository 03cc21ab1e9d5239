import { type RunOptions, userText } from "@omniloop/core";
import { writeMarker } from "@omniloop/core/internal";
import type { HostedSession } from "../host/hosted-session.js";
import { approveFor, ask, clearDeadlines } from "./approvals/approvals.js";
import { refused } from "./driving/driver-fence.js";
import { drivesHere, letGo } from "./driving/driving.js";
import { renderPrompt } from "./named-workflows.js";
import { TaskObserver, type TaskOutcome } from "./task-outcome.js";
import type { WorkflowContext } from "./workflow-context.js";
import type { WorkflowChange } from "./workflow-store.js";
import type { StoredWorkflow, WorkflowStatus } from "./workflow-types.js";
import { FINISHED } from "./workflow-types.js";

/**
 * How a step's Task begins: `start` runs its prompt; `continue` carries on the Task a restart
 * cut off (`continueTask`); `restarted` follows a Task a shutdown aborted, with a note saying so
 * (its outputs went to the carry-over).
 */
export type StepMode = "start" | "continue" | "restarted";

/** A note, not a request: a discard compaction restates the request it continues (core's compaction.ts). */
const RESTART_NOTE = writeMarker(
	"task_restarted",
	"The server was restarted while this task ran; tool calls it had started were stopped (their outputs say so) and will not be run again by the runtime. Continue the task.",
);

/** A gate step's correlation id: the same on every ask, so a restart finds it. */
export function gateId(workflow: StoredWorkflow): string {
	return `gate-${workflow.id}-${workflow.step}`;
}

/** Runs the workflow's current step: a Task of its agent, or a gate's question. Under the lock. */
export async function runStep(ctx: WorkflowContext, workflow: StoredWorkflow, mode: StepMode): Promise<void> {
	if (ctx.closing) return;
	const step = workflow.steps[workflow.step];
	if (step === undefined) {
		await finish(ctx, workflow.id, "completed", { result: { text: workflow.answers.at(-1) ?? "" } });
		return;
	}
	if ("approval" in step) {
		const question = { question: step.approval, step: workflow.step };
		await advance(ctx, workflow.id, { status: "running" });
		await ask(ctx, workflow, {
			kind: "gate",
			correlationId: gateId(workflow),
			callId: `step-${workflow.step}`,
			name: "approval",
			arguments: JSON.stringify(question),
			requestedAt: Date.now(),
		});
		return;
	}
	const hosted = ctx.registry.get(workflow.sessionId);
	useAgent(hosted, step.agent);
	if (mode === "start") {
		workflow = { ...workflow, stepStartedSeq: ctx.host.sessions.lastSeq(workflow.sessionId), status: "running" };
		await advance(ctx, workflow.id, { stepStartedSeq: workflow.stepStartedSeq, status: "running" });
	}
	const prompt = workflow.name === null ? step.prompt : renderPrompt(step.prompt, workflow.input, workflow.answers);
	const id = workflow.id;
	const observer = new TaskObserver(
		(message) =>
			ctx.lock.run(id, async () => {
				const current = await ctx.store.get(id);
				if (current === undefined || FINISHED.has(current.status)) return;
				const { correlationId, callId, name } = message;
				await ask(ctx, current, {
					kind: "call",
					correlationId,
					callId,
					name,
					arguments: message.arguments,
					requestedAt: message.ts,
				});
			}),
		(error) => ctx.host.report(error),
	);
	// askAhead: every call of a turn that needs a person is announced at once, so they are all
	// pending together and one person decides them all and resumes once (docs/protocol.md §5.8).
	const options: RunOptions = { approve: approveFor(ctx, workflow), askAhead: true };
	try {
		const { finished } = await hosted.startWork(
			(session, signal) =>
				observer.watch(
					mode === "continue"
						? session.continueTask({ ...options, signal })
						: session.run([userText(mode === "start" ? prompt : RESTART_NOTE)], { ...options, signal }),
				),
			// A shutdown leaves the Task unfinished, running or waiting on a person, for the next
			// process to continue; deleting its Session aborts it.
			() => ctx.closing,
			observer.follower,
		);
		ctx.live.add(id);
		void finished
			.then(() => ctx.lock.run(id, () => afterTask(ctx, id, observer.outcome)))
			.catch((error: unknown) => ctx.host.report(error));
	} catch (error) {
		await finish(ctx, id, "failed", { error: `its Task could not start: ${(error as Error).message}` });
	}
}

/** A step's Task ended (in this process). Under the lock. */
async function afterTask(ctx: WorkflowContext, id: string, outcome: TaskOutcome): Promise<void> {
	ctx.live.delete(id);
	ctx.waits.denyAll(id);
	// Shutting down: the Task was aborted by the shutdown, not by anyone; the next process goes on.
	if (ctx.closing) return;
	try {
		if (!drivesHere(ctx, id)) return;
		const workflow = await ctx.store.get(id);
		if (workflow === undefined || FINISHED.has(workflow.status)) return;
		await applyOutcome(ctx, workflow, outcome);
	} finally {
		await letGo(ctx, id);
	}
}

/** The next thing after a step's Task ended: the next step, or the workflow's end. Under the lock. */
export async function applyOutcome(ctx: WorkflowContext, workflow: StoredWorkflow, outcome: TaskOutcome) {
	const { done } = outcome;
	if (done === undefined) return finish(ctx, workflow.id, "failed", { error: "its Task ended without a done" });
	if (done.reason === "model_stop") {
		const answers = [...workflow.answers];
		answers[workflow.step] = outcome.lastText;
		const next = { ...workflow, step: workflow.step + 1, answers };
		await advance(ctx, workflow.id, { step: next.step, answers });
		return runStep(ctx, next, "start");
	}
	// Aborted by someone (`/chat/sessions/:id/abort`, a deleted Session): the workflow is over.
	if (done.reason === "user_abort") return finish(ctx, workflow.id, "cancelled", { error: "its Task was aborted" });
	const detail = done.error === undefined ? "" : `: ${done.error.message}`;
	return finish(ctx, workflow.id, "failed", { error: `its Task ended with ${done.reason}${detail}` });
}

/** A decided gate, once resumed: allowed, the next step runs; denied, the workflow stops there. Under the lock. */
export async function passGate(ctx: WorkflowContext, workflow: StoredWorkflow): Promise<void> {
	const gate = await ctx.store.approval(gateId(workflow));
	const question = workflow.steps[workflow.step];
	if (gate?.decision !== "allow") {
		const text = question !== undefined && "approval" in question ? question.approval : "";
		const by = gate?.decidedBy === "timeout" ? " (no decision in time)" : "";
		return finish(ctx, workflow.id, "cancelled", { error: `denied at step ${workflow.step}${by}: ${text}` });
	}
	const answers = [...workflow.answers];
	answers[workflow.step] = "approved";
	const next = { ...workflow, step: workflow.step + 1, answers, status: "running" as const };
	await advance(ctx, workflow.id, { step: next.step, answers, status: "running" });
	return runStep(ctx, next, "start");
}

/** The workflow ends, as its driver saw it (fenced, see `advance`). */
export async function finish(
	ctx: WorkflowContext,
	id: string,
	status: WorkflowStatus,
	end: { result?: { text: string }; error?: string },
): Promise<void> {
	await advance(ctx, id, { status, result: end.result ?? null, error: end.error ?? null });
	await clearDeadlines(ctx, id);
}

/** A person cancelled it, on whichever process: recorded whoever drives it (that one then stops). */
export async function cancelled(ctx: WorkflowContext, id: string): Promise<void> {
	await ctx.store.update(id, { status: "cancelled", result: null, error: "cancelled" });
	await clearDeadlines(ctx, id);
}

/**
 * A write of the workflow's state by the process driving it, conditional in its statement on
 * still driving it: a driver that lost the workflow (paused past its lease) writes nothing
 * after another process took it up (docs/cluster.md).
 */
async function advance(ctx: WorkflowContext, id: string, change: WorkflowChange): Promise<void> {
	const fence = ctx.host.coordinator.workflowFence(id);
	if (!(await ctx.store.update(id, change, fence)) && fence !== undefined) throw await refused(ctx, id);
}

/**
 * Each step runs as its agent: the hosted Session loads again with that agent for the next Task.
 * (The model stays the one the Session's Trace names; core resumes a Session on its own model.)
 */
export function useAgent(hosted: HostedSession, agentId: string): void {
	if (hosted.row.agentId === agentId) return;
	hosted.row = { ...hosted.row, agentId };
	hosted.reloadOnNextTask();
}

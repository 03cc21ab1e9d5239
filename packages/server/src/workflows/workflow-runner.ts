import { randomUUID } from "node:crypto";
import { HttpError, notFound } from "../errors.js";
import { DEFAULT_AGENT } from "../host/agents.js";
import type { HostContext } from "../host/host-context.js";
import type { SessionRegistry } from "../host/session-registry.js";
import { ApprovalWaits } from "./approvals/approval-waits.js";
import { Deadlines } from "./approvals/deadlines.js";
import { cancel, carryOutRecorded, decide, expire, resume } from "./approvals/decisions.js";
import { letGo, mustDrive } from "./driving/driving.js";
import { KeyedLock } from "./driving/keyed-lock.js";
import { WorkflowTakeover } from "./driving/takeover.js";
import { agentApprovalTimeout, namedWorkflow, type ResolvedWorkflow } from "./named-workflows.js";
import { recover } from "./recovery.js";
import { runStep } from "./steps.js";
import type { WorkflowContext } from "./workflow-context.js";
import type { Decision, StoredApproval, StoredWorkflow, WorkflowStatus, WorkflowView } from "./workflow-types.js";
import { FINISHED } from "./workflow-types.js";

export interface StartRequest {
	/** A named workflow of omniloop.yaml; else one Task of `agentId` with `input` as its prompt. */
	workflow?: string | undefined;
	agentId?: string | undefined;
	input: string;
	/** Already checked against the workspace roots. */
	workspaceDir: string;
	/** The workspace root that holds `workspaceDir`: where its Session's AGENTS.md walk starts. */
	workspaceRoot?: string | undefined;
	/** A plain workflow's deadline for approvals (a named one has its own in omniloop.yaml). */
	approvalTimeoutMs?: number | undefined;
}

/**
 * Durable workflows (docs/protocol.md §5.8): Tasks that run detached from any request, wait for people
 * through restarts, and continue the same Task once resumed. State lives in the store and the
 * Trace; this process holds only the live Tasks, their waiting `approve` calls and deadline timers.
 */
export class WorkflowRunner {
	private readonly ctx: WorkflowContext;
	private takeover: WorkflowTakeover | undefined;
	/**
	 * Sessions this process made for a chat (`POST /chat/sessions`): a workflow always makes a
	 * Session of its own, so none ever drives one of these, and a Task's start needs no lookup of
	 * the workflows table for them (one SQL statement of a start's few). Others — made before a
	 * restart, by another process, or by a fork — are looked up.
	 */
	private readonly chatSessions = new Set<string>();

	private constructor(registry: SessionRegistry, host: HostContext) {
		this.ctx = {
			store: host.store.workflows,
			registry,
			host,
			lock: new KeyedLock(),
			waits: new ApprovalWaits(),
			deadlines: new Deadlines(),
			live: new Set(),
			expire: (id, correlationId) => void expire(this.ctx, id, correlationId),
			closing: false,
		};
	}

	/** Opens the runner and takes up what a previous process left unfinished. */
	static async open(registry: SessionRegistry, host: HostContext): Promise<WorkflowRunner> {
		const runner = new WorkflowRunner(registry, host);
		await recover(runner.ctx);
		// Sweeps only after the recovery: what it takes up is not taken up twice here.
		runner.takeover = new WorkflowTakeover(runner.ctx);
		host.coordinator.watchWorkflows((id) => {
			carryOutRecorded(runner.ctx, id).catch((error: unknown) => host.report(error));
		});
		return runner;
	}

	async start(request: StartRequest): Promise<WorkflowView> {
		const resolved = this.resolve(request);
		const agents = resolved.steps.flatMap((step) => ("agent" in step ? [step.agent] : []));
		for (const agent of agents) this.ctx.host.agents.check(agent);
		const hosted = await this.ctx.registry.create(
			agents[0] ?? DEFAULT_AGENT,
			request.workspaceDir,
			request.workspaceRoot,
		);
		const now = Date.now();
		const id = randomUUID();
		// Held before the row exists: another process's sweep never finds it undriven.
		await mustDrive(this.ctx, id);
		const workflow: StoredWorkflow = {
			id,
			name: resolved.name,
			sessionId: hosted.id,
			status: "running",
			input: request.input,
			steps: resolved.steps,
			step: 0,
			answers: [],
			stepStartedSeq: 0,
			approvalTimeoutMs: resolved.approvalTimeoutMs,
			result: null,
			error: null,
			createdAt: now,
			updatedAt: now,
		};
		try {
			await this.ctx.store.insert(workflow);
			await this.ctx.lock.run(workflow.id, () => runStep(this.ctx, workflow, "start"));
		} finally {
			await letGo(this.ctx, workflow.id);
		}
		return this.view(workflow.id);
	}

	async list(status?: WorkflowStatus): Promise<WorkflowView[]> {
		// A workflow of a Session outside the roots is as hidden as its Session.
		const workflows = (await this.ctx.store.list(status)).filter((w) => !this.ctx.registry.hides(w.sessionId));
		const approvals = await this.ctx.store.approvalsOf(workflows.map((workflow) => workflow.id));
		return workflows.map((workflow) => describe(workflow, approvals.get(workflow.id) ?? []));
	}

	async view(id: string): Promise<WorkflowView> {
		const workflow = await this.ctx.store.get(id);
		if (workflow === undefined || this.ctx.registry.hides(workflow.sessionId)) throw notFound(`workflow ${id}`);
		return describe(workflow, await this.ctx.store.approvals(id));
	}

	/** `sessionId` was made for a chat, here: see chatSessions. */
	madeForChat(sessionId: string): void {
		this.chatSessions.add(sessionId);
	}

	/**
	 * A workflow's Session is driven by its workflow: a chat answer to its confirmations would not
	 * reach the workflow (its decisions are durable and wait for a resume), and a chat Task or
	 * compaction would give up the Task a restart left waiting. Refused while the workflow lasts:
	 * a Task or compaction as `session_busy` while the workflow's Task runs (or waits on a person
	 * in memory), here or on another process, as on any Session (DESIGN §9); `invalid_state` when
	 * nothing runs and only the workflow's state stands in the way.
	 */
	async refuseChat(sessionId: string, what: "message" | "compaction" | "answer"): Promise<void> {
		if (this.chatSessions.has(sessionId)) return;
		const workflow = await this.ctx.store.bySession(sessionId);
		if (workflow === undefined || FINISHED.has(workflow.status)) return;
		const refusal = `session ${sessionId} runs workflow ${workflow.id} (${workflow.status}): no chat ${what} until it ends`;
		if (what === "answer") {
			throw new HttpError("invalid_state", `${refusal}: answer with POST /workflows/${workflow.id}/approve`);
		}
		if (await this.taskRuns(sessionId)) throw new HttpError("session_busy", `${refusal}: its Task runs`);
		throw new HttpError("invalid_state", refusal);
	}

	/** Whether a Task holds the Session now, in this process or another live one. */
	private async taskRuns(sessionId: string): Promise<boolean> {
		if (this.ctx.registry.find(sessionId)?.running === true) return true;
		return this.ctx.host.coordinator.runsElsewhere(sessionId);
	}

	decide(id: string, correlationId: string, decision: Decision): Promise<WorkflowStatus> {
		return decide(this.ctx, id, correlationId, decision, "user");
	}

	resume(id: string): Promise<WorkflowStatus> {
		return resume(this.ctx, id);
	}

	cancel(id: string): Promise<WorkflowStatus> {
		return cancel(this.ctx, id);
	}

	/**
	 * Shutdown, before the Sessions close: nothing more starts, deadlines stop (the store keeps
	 * them), and the workflows' Tasks, running or waiting on a person, are left unfinished (their
	 * tools stopped, no `done` written) for the next process to continue (HostedSession.close).
	 */
	close(): void {
		this.ctx.closing = true;
		this.takeover?.close();
		this.ctx.deadlines.close();
	}

	private resolve(request: StartRequest): ResolvedWorkflow {
		if (request.workflow !== undefined) return namedWorkflow(this.ctx.host.project.load(), request.workflow);
		const agent = request.agentId ?? DEFAULT_AGENT;
		return {
			name: null,
			steps: [{ agent, prompt: request.input }],
			approvalTimeoutMs: request.approvalTimeoutMs ?? agentApprovalTimeout(this.ctx.host.project.load().config, agent),
		};
	}
}

/** A workflow as the API shows it, with its approvals (in the order they were asked). */
function describe(workflow: StoredWorkflow, approvals: readonly StoredApproval[]): WorkflowView {
	const open = !FINISHED.has(workflow.status);
	return {
		id: workflow.id,
		...(workflow.name === null ? {} : { name: workflow.name }),
		sessionId: workflow.sessionId,
		status: workflow.status,
		pendingApprovals: approvals
			.filter((a) => open && a.decision === null)
			.map((a) => ({
				correlationId: a.correlationId,
				callId: a.callId,
				name: a.name,
				arguments: a.arguments,
				requestedAt: a.requestedAt,
				...(a.expiresAt === null ? {} : { expiresAt: a.expiresAt }),
			})),
		approvals: approvals.map((a) => ({
			correlationId: a.correlationId,
			callId: a.callId,
			name: a.name,
			decision: a.decision,
			by: a.decidedBy,
			decidedAt: a.decidedAt,
		})),
		step: workflow.step,
		...(workflow.result === null ? {} : { result: workflow.result }),
		...(workflow.error === null ? {} : { error: workflow.error }),
		createdAt: workflow.createdAt,
		updatedAt: workflow.updatedAt,
	};
}

import { randomUUID } from "node:crypto";
import { DENIED_OUTPUT, makeMessage, policyDeniedOutput, toolCallOutput } from "../../messages/constructors.js";
import type { OmniMessage, ToolCall, ToolCallOutput, ToolCallStatus } from "../../messages/omni-message.js";
import { type ApprovalRules, policyFor } from "../../tools/approval-policy.js";
import type { Environment } from "../../tools/environment.js";
import type { ApprovalAnswer, ApproveFn, TaskHooks } from "../../tools/tool.js";
import type { PreparedCall } from "../../tools/tool-execution.js";
import { ABORTED, type Aborted, type Interruptible } from "../task/interruptible.js";

/** What a batch needs from its Task. */
export interface BatchHost {
	readonly environment: Environment;
	readonly approval: ApprovalRules;
	readonly approve: ApproveFn | undefined;
	readonly taskHooks: TaskHooks;
	readonly interrupt: Interruptible;
	emit(message: OmniMessage): void;
	/** Called before waiting on a person: the Trace must hold everything so far. */
	flushTrace(): void;
	/** Settles once the host has read the call from the stream: a person is asked about what they have seen. */
	delivered(call: ToolCall): Promise<void>;
	/** Ends the Task with an error: the batch's own machinery broke (e.g. the Trace cannot be written). */
	fail(error: unknown): void;
}

/**
 * One turn's tool calls, from the moment each completes in the stream to its output.
 *
 * Each call goes prepare → decide (policy, then the host's `approve` if asked) → execute →
 * finalize. Decisions are made one at a time in call order, as calls complete in the stream.
 * Allowed read-only calls start at once; other allowed calls start when the model's output has
 * completed (a write never runs on a turn the model did not finish). Calls run concurrently and
 * outputs are emitted as they finish. Every call ends with exactly one output, unless the Task
 * ends first (the carry-over then fills the gaps).
 */
export class ToolBatch {
	readonly calls: ToolCall[] = [];
	private readonly outputs = new Map<string, ToolCallOutput>();
	private decisions: Promise<void> = Promise.resolve();
	private asking: Promise<unknown> | undefined;
	private onChange: (() => void) | undefined;
	/** Allowed calls waiting for the model's output to complete; undefined once it has. */
	private held: (() => void)[] | undefined = [];

	constructor(private readonly host: BatchHost) {}

	/** A call completed in the stream. Must be called in call order, once per call id. */
	add(call: ToolCall): void {
		this.calls.push(call);
		this.decisions = this.decisions.then(() => this.decide(call)).catch((error: unknown) => this.host.fail(error));
	}

	/** The model's output completed: held calls start now, later ones at once. */
	outputComplete(): void {
		const held = this.held ?? [];
		this.held = undefined;
		for (const start of held) start();
	}

	get size(): number {
		return this.calls.length;
	}

	get allTerminal(): boolean {
		return this.outputs.size === this.calls.length;
	}

	/** True while the host's `approve` is being waited on. */
	get awaitingApproval(): boolean {
		return this.asking !== undefined;
	}

	outputFor(callId: string): ToolCallOutput | undefined {
		return this.outputs.get(callId);
	}

	/** The outputs in call order; only once every call is terminal. */
	outputsInCallOrder(): ToolCallOutput[] {
		return this.calls.map((call) => this.outputs.get(call.callId) as ToolCallOutput);
	}

	/** Settles at the next change: an output, or an approval starting or ending. One waiter (the executing state). */
	changed(): Promise<void> {
		return new Promise<void>((resolve) => {
			this.onChange = resolve;
		});
	}

	/** Settles when the approval being waited on now is answered (at once if none is). */
	approvalAnswered(): Promise<unknown> {
		return this.asking ?? Promise.resolve();
	}

	private notify(): void {
		const onChange = this.onChange;
		this.onChange = undefined;
		onChange?.();
	}

	private async decide(call: ToolCall): Promise<void> {
		if (this.host.interrupt.signal.aborted) return;
		const prepared = this.host.environment.prepare(call);
		if (prepared.kind === "refused") {
			this.record(call, "deny", "policy");
			return this.finish(call, prepared.output, "error");
		}
		const rule = policyFor(this.host.approval, prepared.tool);
		if (rule === "allow") return this.allow(call, prepared, "policy");
		if (rule === "deny" || this.host.approve === undefined) {
			this.record(call, "deny", "policy");
			return this.finish(call, policyDeniedOutput(call.name, rule !== "deny"), "denied");
		}
		const correlationId = randomUUID();
		const answer = await this.ask(call, this.host.approve, correlationId);
		if (answer === ABORTED) return;
		if (answer === "allow") return this.allow(call, prepared, "user", correlationId);
		this.record(call, "deny", "user", correlationId);
		this.finish(call, DENIED_OUTPUT, "denied");
	}

	/**
	 * Asks a person, once the host has read the call: `confirmation_required` goes out and into
	 * the Trace file before the wait, so every host (and a restart) can see the call waits.
	 */
	private async ask(call: ToolCall, approve: ApproveFn, correlationId: string): Promise<ApprovalAnswer | Aborted> {
		if ((await this.host.interrupt.race(this.host.delivered(call))) === ABORTED) return ABORTED;
		this.host.emit(
			makeMessage("confirmation_required", {
				correlationId,
				callId: call.callId,
				name: call.name,
				arguments: call.arguments,
			}),
		);
		this.host.flushTrace();
		let answered: Promise<ApprovalAnswer>;
		try {
			answered = approve(call, { signal: this.host.interrupt.signal, correlationId });
		} catch (error) {
			answered = Promise.reject(error);
		}
		const waiting = this.host.interrupt.race(Promise.resolve(answered)).catch(() => "deny" as const);
		this.asking = waiting;
		this.notify();
		const answer = await waiting;
		this.asking = undefined;
		if (answer !== ABORTED) this.notify();
		return answer === "allow" ? "allow" : answer === ABORTED ? ABORTED : "deny";
	}

	private allow(
		call: ToolCall,
		prepared: Extract<PreparedCall, { kind: "ready" }>,
		by: "policy" | "user",
		correlationId?: string,
	): void {
		this.record(call, "allow", by, correlationId);
		if (prepared.tool.readOnly || this.held === undefined) this.start(call, prepared);
		else this.held.push(() => this.start(call, prepared));
	}

	private start(call: ToolCall, prepared: Extract<PreparedCall, { kind: "ready" }>): void {
		if (this.host.interrupt.signal.aborted) return;
		this.host.emit(makeMessage("tool_start", { callId: call.callId, name: call.name }));
		this.host.environment
			.executeTool(call, prepared, {
				task: this.host.taskHooks,
				abort: this.host.interrupt,
				progress: (progress) =>
					this.host.emit(makeMessage("tool_progress", { callId: call.callId, name: call.name, progress })),
			})
			.then((result) => this.finish(call, result.output, result.status))
			.catch((error: unknown) => this.host.fail(error));
	}

	private record(call: ToolCall, decision: ApprovalAnswer, by: "policy" | "user", correlationId?: string): void {
		this.host.emit(
			makeMessage("approval_decision", {
				callId: call.callId,
				name: call.name,
				decision,
				by,
				...(correlationId === undefined ? {} : { correlationId }),
			}),
		);
	}

	/** Once the Task is aborted nothing more is recorded: the carry-over accounts for the rest. */
	private finish(call: ToolCall, output: string, status: ToolCallStatus): void {
		if (this.host.interrupt.signal.aborted) return;
		const message = toolCallOutput(call, output, status);
		this.outputs.set(call.callId, message);
		this.host.emit(message);
		this.notify();
	}
}

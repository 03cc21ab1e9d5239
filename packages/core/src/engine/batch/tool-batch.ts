import {
	DENIED_OUTPUT,
	makeMessage,
	policyDeniedOutput,
	toolCallOutput,
	UNANSWERED_OUTPUT,
	unsandboxedDeniedOutput,
} from "../../messages/constructors.js";
import { errorMessage } from "../../messages/error-message.js";
import type { OmniMessage, ToolCall, ToolCallOutput, ToolCallStatus } from "../../messages/omni-message.js";
import type { AlwaysAllowed } from "../../session-store/always-allowed.js";
import { type ApprovalRules, type PolicyRule, policyFor } from "../../tools/approval-policy.js";
import type { Environment } from "../../tools/environment.js";
import type { ApprovalAnswer, ApproveFn, ApproveResult, DecidedBy, TaskHooks, Tool } from "../../tools/tool.js";
import type { ExecutionResult, PreparedCall } from "../../tools/tool-execution.js";
import { type CallRecord, CRASHED_WHILE_RUNNING } from "../continuation/unfinished-turn.js";
import { ABORTED, type Aborted, Interruptible } from "../task/interruptible.js";
import { ConfirmationAnnouncements } from "./confirmations.js";
import { DecisionQueue } from "./decision-queue.js";
import { type ReadyCall, ToolStarts } from "./tool-starts.js";
import type { TracePersist } from "./trace-persist.js";

/** What a batch needs from its Task. */
export interface BatchHost {
	readonly environment: Environment;
	readonly approval: ApprovalRules;
	/** A person's "always" grants: read at each call the policy would ask about, before it is announced. */
	readonly alwaysAllowed: Pick<AlwaysAllowed, "has">;
	readonly approve: ApproveFn | undefined;
	readonly taskHooks: TaskHooks;
	readonly interrupt: Interruptible;
	emit(message: OmniMessage): void;
	/** Emits even once the Task is ending (a failure closed `emit`): `abandon`'s decisions and outputs. */
	emitFinal(message: OmniMessage): void;
	/** Before waiting on a person and before tools start: persists the Trace so far (see TracePersist). */
	readonly persistTrace: TracePersist;
	/** Right before calls start: throws when the host may no longer run the Session (see ActionGuard). */
	guard(): void;
	/** Settles once the host has read the call from the stream: a person is asked about what they have seen. */
	delivered(call: ToolCall): Promise<void>;
	/** Ends the Task with an error: the batch's own machinery broke (e.g. the Trace cannot be written). */
	fail(error: unknown): void;
	/** Announce every call of the turn that needs a person at once (see ConfirmationAnnouncements). */
	readonly askAhead: boolean;
	/** See StartHost.checkpoint. */
	readonly checkpoint: (() => Promise<void>) | undefined;
}

/**
 * One turn's tool calls, from the moment each completes in the stream to its output.
 *
 * Each call goes prepare → decide (policy, then the host's `approve` if asked) → execute →
 * finalize. Decisions are made one at a time in call order, as calls complete in the stream.
 * Allowed calls start as ToolStarts says (read-only ones while the model streams, the others once
 * its output has completed), each batch written ahead in the Trace. Calls run concurrently and
 * outputs are emitted as they finish. Every call ends with exactly one output, unless the Task
 * ends first (the carry-over then fills the gaps).
 */
export class ToolBatch {
	readonly calls: ToolCall[] = [];
	/** A call's tool asked to end the Task (`ToolContext.endTask`): no request follows this turn. */
	endsTask = false;
	private readonly outputs = new Map<string, ToolCallOutput>();
	private readonly decisions: DecisionQueue;
	private asking: Promise<unknown> | undefined;
	private onChange: (() => void) | undefined;
	/** When allowed calls start, each batch after one Trace write (write-ahead). */
	private readonly starts: ToolStarts;
	/** Set by `abandon`: the batch records nothing more. */
	private abandoned = false;
	/**
	 * Fires at `abandon`: a person being asked about a call of the given-up turn is asked no more.
	 * Made when a person is first asked (most turns ask nobody, and a controller is not cheap).
	 */
	private givenUp: AbortController | undefined;
	/** Calls whose approval_decision is recorded. */
	private readonly decided = new Set<string>();
	/** Made when a call first needs a person: most turns ask nobody. */
	private announcementsMade: ConfirmationAnnouncements | undefined;
	private outputCompleted = false;
	/** Settles the promise the announcements wait on, once the output completes; made with them. */
	private markOutputDone: (() => void) | undefined;

	constructor(private readonly host: BatchHost) {
		this.decisions = new DecisionQueue((error) => host.fail(error));
		this.starts = new ToolStarts(host, ({ call, prepared }) => this.execute(call, prepared));
	}

	private get announcements(): ConfirmationAnnouncements {
		this.announcementsMade ??= new ConfirmationAnnouncements(
			this.host,
			this.host.askAhead,
			this.outputCompleted
				? Promise.resolve()
				: new Promise<void>((resolve) => {
						this.markOutputDone = resolve;
					}),
			(call) => this.unsandboxedReason(call),
		);
		return this.announcementsMade;
	}

	/** A call completed in the stream. Must be called in call order, once per call id. */
	add(call: ToolCall): void {
		this.calls.push(call);
		this.decisions.queue(() => this.decide(call));
	}

	/**
	 * The model's output completed. The calls allowed so far start together (one Trace write: the
	 * policy decides as calls complete, so that is every call it allows); calls allowed later (by
	 * a person) start at once. No allowed call waits on a person's answer about another.
	 */
	outputComplete(): void {
		this.outputCompleted = true;
		this.markOutputDone?.();
		this.starts.outputComplete();
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

	/**
	 * Settles once the executing state has something to do: every call is terminal, or a person is
	 * being asked. One waiter (the executing state); an output that leaves calls running wakes nothing.
	 */
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
		if (this.asking === undefined && !this.allTerminal) return;
		const onChange = this.onChange;
		this.onChange = undefined;
		onChange?.();
	}

	/**
	 * A call of a turn a crash or restart cut off, carried on from what its Trace shows: a finished
	 * output stays as it was; a call that had started gets an interrupted output and never runs
	 * again; a recorded decision is carried out (an allowed call that had not started runs now,
	 * once); a call that waited on a person is asked again with the same correlation id; an
	 * undecided one is decided as any call is. In call order, like `add`.
	 */
	continueCall(call: ToolCall, record: CallRecord): void {
		this.calls.push(call);
		// A finished output is the batch's at once: a Task aborted before its decisions run keeps it.
		if (record.output !== undefined) {
			this.outputs.set(call.callId, record.output);
			return;
		}
		// Known at once, not when the call's turn comes: asking ahead announces the later calls
		// while the first is asked, and they must be announced under the ids they were asked under.
		if (record.confirmation !== undefined && record.decision === undefined)
			this.announcements.askedBefore(call.callId, record.confirmation.correlationId);
		this.decisions.queue(() => this.carryOn(call, record));
	}

	private carryOn(call: ToolCall, record: CallRecord): Promise<void> | void {
		if (this.host.interrupt.aborted || this.abandoned) return;
		if (record.started) return this.finish(call, CRASHED_WHILE_RUNNING, "interrupted");
		const decided = record.decision;
		if (decided === undefined) return this.decide(call);
		if (decided.decision === "deny") {
			return this.finish(call, deniedOutputOf(call, decided.by), "denied");
		}
		const prepared = this.host.environment.prepare(call);
		if (prepared.kind === "refused") return this.finish(call, prepared.output, "error");
		this.starts.allowed({ call, prepared });
	}

	/**
	 * The policy's decision, or a person's earlier "always" for the tool, made at once; a promise
	 * only when a person is asked. The grant is read here, before anything is announced: a call it
	 * allows gets no `confirmation_required` (nobody is asked) and is recorded `by: "always"`.
	 */
	private decide(call: ToolCall): Promise<void> | void {
		if (this.host.interrupt.aborted || this.abandoned) return;
		const prepared = this.host.environment.prepare(call);
		if (prepared.kind === "refused") {
			this.record(call, "deny", "policy");
			return this.finish(call, prepared.output, "error");
		}
		const rule = this.ruleFor(prepared.tool);
		if (rule === "allow") return this.allow(call, prepared, "policy");
		if (rule === "deny" || this.host.approve === undefined) {
			this.record(call, "deny", "policy");
			const unsandboxed = this.host.environment.unsandboxed(prepared.tool);
			const output =
				rule !== "deny" && unsandboxed !== undefined
					? unsandboxedDeniedOutput(call.name, unsandboxed)
					: policyDeniedOutput(call.name, rule !== "deny");
			return this.finish(call, output, "denied");
		}
		if (this.grantedAlways(call, prepared.tool)) return this.allow(call, prepared, "always");
		return this.decideByPerson(call, prepared, this.host.approve);
	}

	/**
	 * Whether an "always" grant decides the call. Not one already announced (asked ahead, or
	 * before a restart): its question has to get its own answer, under its correlation id. Not one
	 * that would run without its sandbox either: a person decides each of those (docs/sandbox.md).
	 */
	private grantedAlways(call: ToolCall, t: Tool): boolean {
		return (
			!this.announcements.announced(call.callId) &&
			this.host.alwaysAllowed.has(call.name) &&
			this.host.environment.unsandboxed(t) === undefined
		);
	}

	/**
	 * The policy's rule, except that a call that would run without the sandbox its agent is
	 * configured for is never allowed by policy: a person decides it (docs/sandbox.md).
	 */
	private ruleFor(t: Tool): PolicyRule {
		const rule = policyFor(this.host.approval, t);
		return rule === "allow" && this.host.environment.unsandboxed(t) !== undefined ? "ask" : rule;
	}

	/** Why the call would run unsandboxed, for the person asked about it; undefined when it would not. */
	private unsandboxedReason(call: ToolCall): string | undefined {
		const prepared = this.host.environment.prepare(call);
		return prepared.kind === "ready" ? this.host.environment.unsandboxed(prepared.tool) : undefined;
	}

	private async decideByPerson(
		call: ToolCall,
		prepared: Extract<PreparedCall, { kind: "ready" }>,
		approve: ApproveFn,
	): Promise<void> {
		const correlationId = this.announcements.idFor(call.callId);
		const answer = await this.ask(call, approve, correlationId);
		if (answer === ABORTED) return;
		if (answer === "allow") return this.allow(call, prepared, "user", correlationId);
		if (typeof answer === "object") {
			// Nobody decided: the host's approve failed. The call is denied (nothing runs without a
			// say), by the engine, and the model is told why rather than that a person refused.
			this.record(call, "deny", "policy", correlationId);
			return this.finish(call, `Tool call denied: the approval could not be asked (${answer.failed}).`, "denied");
		}
		this.record(call, "deny", answer, correlationId);
		this.finish(call, deniedOutputOf(call, answer), "denied");
	}

	/**
	 * Asks a person, once the call is announced (`confirmation_required`, in the stream and the
	 * Trace file before the wait, so every host — and a restart — can see the call waits).
	 * "allow", or who denied it: a person ("user") or nobody in time ("timeout").
	 */
	private async ask(
		call: ToolCall,
		approve: ApproveFn,
		correlationId: string,
	): Promise<"allow" | "user" | "timeout" | { failed: string } | Aborted> {
		// Ended by the Task's end or by the turn being given up, whichever comes first.
		const question = new Interruptible(AbortSignal.any([this.host.interrupt.signal, this.givenUpSignal()]));
		const announced = this.announcements.announce(call, () => this.waitingOnPerson(call));
		if ((await question.race(announced)) === ABORTED) return ABORTED;
		let answered: Promise<ApproveResult>;
		try {
			const unsandboxed = this.unsandboxedReason(call);
			answered = approve(call, {
				signal: question.signal,
				correlationId,
				...(unsandboxed === undefined ? {} : { unsandboxed }),
			});
		} catch (error) {
			answered = Promise.reject(error);
		}
		const waiting = question
			.race(Promise.resolve(answered))
			// The host's error reaches the model and the Trace: its first line, cut short (not a stack, a dump).
			.catch((error: unknown) => ({ failed: firstLine(errorMessage(error), 200) }) as const);
		this.asking = waiting;
		this.notify();
		const answer = await waiting;
		// Nothing to wake: the confirming state waits on this answer itself (approvalAnswered).
		this.asking = undefined;
		if (answer === "allow" || answer === ABORTED) return answer;
		if (typeof answer === "object" && "failed" in answer) return answer;
		return typeof answer === "object" && answer?.by === "timeout" ? "timeout" : "user";
	}

	/** `first` and the undecided calls after it that a person will be asked about, in call order. */
	private waitingOnPerson(first: ToolCall): ToolCall[] {
		return this.calls.slice(this.calls.indexOf(first)).filter((call) => {
			if (call !== first && (this.decided.has(call.callId) || this.outputs.has(call.callId))) return false;
			const prepared = this.host.environment.prepare(call);
			if (prepared.kind !== "ready" || this.ruleFor(prepared.tool) !== "ask") return false;
			return call === first || !this.grantedAlways(call, prepared.tool);
		});
	}

	private allow(
		call: ToolCall,
		prepared: Extract<PreparedCall, { kind: "ready" }>,
		by: "policy" | "user" | "always",
		correlationId?: string,
	): void {
		this.record(call, "allow", by, correlationId);
		this.starts.allowed({ call, prepared }, by === "user");
	}

	private execute(call: ToolCall, prepared: ReadyCall["prepared"]): void {
		this.host.environment
			.executeTool(call, prepared, {
				task: this.host.taskHooks,
				abort: this.host.interrupt,
				progress: (progress) => {
					if (!this.abandoned)
						this.host.emit(makeMessage("tool_progress", { callId: call.callId, name: call.name, progress }));
				},
			})
			.then((result) => this.finishRun(call, result));
	}

	/** A call's run settled (it never rejects): its output, unless recording it broke the Task. */
	private finishRun(call: ToolCall, result: ExecutionResult): void {
		if (result.endsTask === true) this.endsTask = true;
		try {
			this.finish(call, result.output, result.status);
		} catch (error) {
			this.host.fail(error);
		}
	}

	/**
	 * The turn was given up (a context overflow before the model's output completed, or the Task
	 * ending on its own with calls still open: its model stream failed for good): every call
	 * still undecided is denied by the engine and every call without an output gets an interrupted
	 * one now, saying `why`, so each has its one decision and one output before the next request (docs/protocol.md §5.1).
	 * Then nothing more of the batch starts or is recorded: a person being asked is asked no more
	 * (their `approve` signal fires), and a read-only call already running finishes unheard.
	 */
	abandon(why: string): void {
		if (this.abandoned) return;
		const output = `[interrupted: ${why}]`;
		for (const call of this.calls) {
			if (!this.decided.has(call.callId) && !this.outputs.has(call.callId)) {
				this.decided.add(call.callId);
				this.host.emitFinal(decisionOf(call, "deny", "policy", this.announcedAs(call.callId)));
			}
			if (!this.outputs.has(call.callId)) {
				const message = toolCallOutput(call, output, "interrupted");
				this.outputs.set(call.callId, message);
				this.host.emitFinal(message);
			}
		}
		this.abandoned = true;
		this.starts.cancel();
		this.givenUp?.abort();
		this.notify();
	}

	/** The correlation id a call's `confirmation_required` went out under; undefined when none did. */
	private announcedAs(callId: string): string | undefined {
		const announcements = this.announcementsMade;
		return announcements?.announced(callId) === true ? announcements.idFor(callId) : undefined;
	}

	private givenUpSignal(): AbortSignal {
		if (this.givenUp === undefined) {
			this.givenUp = new AbortController();
			if (this.abandoned) this.givenUp.abort();
		}
		return this.givenUp.signal;
	}

	private record(call: ToolCall, decision: ApprovalAnswer, by: DecidedBy, correlationId?: string): void {
		if (this.abandoned) return;
		this.decided.add(call.callId);
		this.host.emit(decisionOf(call, decision, by, correlationId));
	}

	/** Once the Task is aborted nothing more is recorded: the carry-over accounts for the rest. */
	private finish(call: ToolCall, output: string, status: ToolCallStatus): void {
		if (this.host.interrupt.aborted || this.abandoned) return;
		const message = toolCallOutput(call, output, status);
		this.outputs.set(call.callId, message);
		this.host.emit(message);
		this.notify();
	}
}

function firstLine(text: string, max: number): string {
	const line = text.split("\n", 1)[0] ?? "";
	return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function decisionOf(call: ToolCall, decision: ApprovalAnswer, by: DecidedBy, correlationId: string | undefined) {
	const message = makeMessage("approval_decision", { callId: call.callId, name: call.name, decision, by });
	if (correlationId !== undefined) message.correlationId = correlationId;
	return message;
}

/** The output a denied call gets, by who denied it. */
function deniedOutputOf(call: ToolCall, by: DecidedBy): string {
	if (by === "user") return DENIED_OUTPUT;
	if (by === "timeout") return UNANSWERED_OUTPUT;
	return policyDeniedOutput(call.name, false);
}

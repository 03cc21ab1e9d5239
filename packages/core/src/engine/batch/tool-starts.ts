import { makeMessage } from "../../messages/constructors.js";
import type { OmniMessage, ToolCall } from "../../messages/omni-message.js";
import type { PreparedCall } from "../../tools/tool-execution.js";
import type { Interruptible } from "../task/interruptible.js";
import type { TracePersist } from "./trace-persist.js";

/** An allowed call, ready to run. */
export interface ReadyCall {
	call: ToolCall;
	prepared: Extract<PreparedCall, { kind: "ready" }>;
}

/** What starting calls needs from the Task. */
export interface StartHost {
	readonly interrupt: Interruptible;
	emit(message: OmniMessage): void;
	readonly persistTrace: TracePersist;
	guard(): void;
	fail(error: unknown): void;
	/**
	 * Checkpoints the workspace before the turn's first call that may change it (not read-only);
	 * settles when that is done or has failed (never rejects). Undefined: no checkpoints.
	 */
	readonly checkpoint: (() => Promise<void>) | undefined;
}

/**
 * When a turn's allowed calls start, and the Trace write ahead of them.
 *
 * Read-only calls allowed without asking anyone while the model streams start at the next
 * macrotask, with the others allowed until then (what one socket read delivers); other calls — one
 * a person was asked about, a subagent's too, read-only
 * to the approval policy but its own tools may write — wait for the model's output to complete (a
 * write never runs on a turn the model did not finish) and start together then.
 * Write-ahead: one write puts the tool_start lines of calls that start together — and their calls
 * and decisions before them — on disk before any of them runs. After a crash the Trace shows
 * every call that may have run, so a resume never runs one again.
 */
export class ToolStarts {
	/** Calls waiting for the model's output to complete; undefined once it has. */
	private held: ReadyCall[] | undefined = [];
	/** Read-only calls allowed while the model streams, about to start together. */
	private soon: ReadyCall[] = [];
	/** The macrotask that starts `soon`; cleared when the output completes first (most turns). */
	private soonTimer: ReturnType<typeof setImmediate> | undefined;
	private cancelled = false;
	/** The turn's checkpoint, once a call that may change files was to start: every start waits for it. */
	private checkpointed: Promise<void> | undefined;

	constructor(
		private readonly host: StartHost,
		private readonly run: (ready: ReadyCall) => void,
	) {}

	/** Nothing waiting starts any more (the turn was given up). */
	cancel(): void {
		this.cancelled = true;
		this.held = [];
		this.takeSoon();
	}

	/**
	 * A call was allowed: it starts now, at the next macrotask, or when the output completes.
	 * `askedPerson`: a person allowed it when asked. Only a read-only call that needed no approval
	 * starts while the model streams (docs/architecture.md §2); one a person had to be asked about
	 * was worth a question, so it waits for the output like a write.
	 */
	allowed(ready: ReadyCall, askedPerson = false): void {
		if (this.cancelled) return;
		if (this.held === undefined) this.start([ready]);
		else if (!askedPerson && !mayChangeFiles(ready)) {
			this.soon.push(ready);
			if (this.soon.length === 1) this.soonTimer = setImmediate(() => this.start(this.takeSoon()));
		} else this.held.push(ready);
	}

	/** The model's output completed: every waiting call starts now (one write), later ones at once. */
	outputComplete(): void {
		const ready = [...this.takeSoon(), ...(this.held ?? [])];
		this.held = undefined;
		this.start(ready);
	}

	/** The host's guard allows calls to start; a refusal ends the Task with it. */
	private mayRun(): boolean {
		try {
			this.host.guard();
			return true;
		} catch (error) {
			this.host.fail(error);
			return false;
		}
	}

	private takeSoon(): ReadyCall[] {
		clearImmediate(this.soonTimer);
		this.soonTimer = undefined;
		const soon = this.soon;
		this.soon = [];
		return soon;
	}

	private start(ready: readonly ReadyCall[]): void {
		if (ready.length === 0 || this.cancelled || this.host.interrupt.aborted) return;
		const { checkpoint } = this.host;
		if (this.checkpointed === undefined && checkpoint !== undefined && ready.some((r) => mayChangeFiles(r))) {
			this.checkpointed = checkpoint();
		}
		if (this.checkpointed === undefined) this.startNow(ready);
		else void this.checkpointed.then(() => this.startNow(ready));
	}

	private startNow(ready: readonly ReadyCall[]): void {
		if (this.cancelled || this.host.interrupt.aborted) return;
		if (!this.mayRun()) return;
		for (const { call } of ready) this.host.emit(makeMessage("tool_start", { callId: call.callId, name: call.name }));
		let shipped: Promise<void> | undefined;
		try {
			shipped = this.host.persistTrace();
		} catch (error) {
			this.host.fail(error);
			return;
		}
		if (shipped === undefined) {
			for (const call of ready) this.run(call);
			return;
		}
		// Asked again once the write is acknowledged: a host paused meanwhile may have lost the Session.
		// Aborted meanwhile: the calls never start (their tool_start says they may have; the carry-over says interrupted).
		shipped.then(
			() => {
				if (this.cancelled || this.host.interrupt.aborted || !this.mayRun()) return;
				for (const call of ready) this.run(call);
			},
			(error: unknown) => this.host.fail(error),
		);
	}
}

function mayChangeFiles({ prepared: { tool } }: ReadyCall): boolean {
	return tool.changesFiles ?? !tool.readOnly;
}

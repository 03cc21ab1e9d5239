import type { ApprovalAnswer, PendingConfirmation } from "@omniloop/core";
import { type SessionFence, UNFENCED } from "../coordination/session-fence.js";
import type { RecordedDecision, Store } from "../store/store.js";

export type { PendingConfirmation };

/** Kept until its answer reaches the engine's `approve` (`wait`), however early it came. */
interface Entry {
	confirmation: PendingConfirmation;
	decision: ApprovalAnswer | undefined;
	resolve: ((answer: ApprovalAnswer) => void) | undefined;
}

export type DecideResult = { kind: "decided" } | { kind: "already"; decision: RecordedDecision } | { kind: "unknown" };

/**
 * The answers to a Session's confirmations: each confirmation asked (in memory while the Task
 * lives, and in the store), answered once. The first answer wins; a later one learns the recorded
 * decision. An answer may arrive before the engine calls `approve` (the client saw
 * `confirmation_required` first): it is kept. What the Task writes (a confirmation asked, or
 * interrupted as it ends) carries its claim's fence; a process that lost the Session writes none.
 */
export class ConfirmationAnswers {
	private readonly entries = new Map<string, Entry>();

	constructor(
		private readonly sessionId: string,
		private readonly store: Store,
		private readonly onChange: () => void,
		/** The Task's claim on the Session, now (Coordinator.sessionFence). */
		private readonly fence: () => SessionFence = () => UNFENCED,
	) {}

	/**
	 * Registers a confirmation (idempotent) and writes it to the store. Not once the Session's claim
	 * is lost: the Task is being aborted, and its `approve` gets "deny".
	 */
	request(confirmation: PendingConfirmation): Promise<void> {
		if (this.entries.has(confirmation.correlationId)) return Promise.resolve();
		const fence = this.fence();
		if (fence.lost) return Promise.resolve();
		this.entries.set(confirmation.correlationId, { confirmation, decision: undefined, resolve: undefined });
		this.onChange();
		return this.store.addConfirmation({ ...confirmation, sessionId: this.sessionId }, fence.condition);
	}

	/** Settles with the person's answer; `signal` firing ends the wait (the Task was aborted). */
	wait(correlationId: string, signal: AbortSignal): Promise<ApprovalAnswer> {
		const entry = this.entries.get(correlationId);
		if (entry === undefined) return Promise.resolve("deny");
		if (entry.decision !== undefined) {
			this.entries.delete(correlationId);
			return Promise.resolve(entry.decision);
		}
		return new Promise((resolve) => {
			entry.resolve = resolve;
			signal.addEventListener(
				"abort",
				() => {
					if (entry.decision !== undefined) return;
					void this.interrupt(correlationId);
					resolve("deny");
				},
				{ once: true },
			);
		});
	}

	async decide(correlationId: string, decision: ApprovalAnswer): Promise<DecideResult> {
		const entry = this.entries.get(correlationId);
		if (entry === undefined) {
			const stored = await this.store.getConfirmation(correlationId);
			if (stored === undefined || stored.sessionId !== this.sessionId) return { kind: "unknown" };
			return { kind: "already", decision: stored.decision ?? "interrupted" };
		}
		if (entry.decision !== undefined) return { kind: "already", decision: entry.decision };
		entry.decision = decision;
		await this.store.decideConfirmation(correlationId, decision, Date.now());
		this.answer(correlationId, entry);
		return { kind: "decided" };
	}

	/** An answer another server process recorded in the store already: the waiting call gets it. */
	settle(correlationId: string, decision: ApprovalAnswer): void {
		const entry = this.entries.get(correlationId);
		if (entry === undefined || entry.decision !== undefined) return;
		entry.decision = decision;
		this.answer(correlationId, entry);
	}

	/** A decided entry goes once `approve` has its answer; until it asks, the answer waits here. */
	private answer(correlationId: string, entry: Entry): void {
		if (entry.resolve !== undefined) {
			this.entries.delete(correlationId);
			entry.resolve(entry.decision as ApprovalAnswer);
		}
		this.onChange();
	}

	/** Undecided confirmations, in the order they were asked. */
	pending(): PendingConfirmation[] {
		return [...this.entries.values()].filter((e) => e.decision === undefined).map((e) => e.confirmation);
	}

	get waiting(): boolean {
		return this.pending().length > 0;
	}

	/**
	 * The Task ended: what it still waited on leaves the pending list, and is recorded interrupted
	 * under `fence` (taken before the claim went; a claim since, which interrupts them itself, or
	 * a lost one, writes nothing here).
	 */
	async interruptAll(fence: SessionFence = this.fence()): Promise<void> {
		for (const [id, entry] of [...this.entries]) {
			if (entry.decision === undefined) await this.interrupt(id, fence);
			else this.entries.delete(id);
		}
	}

	private async interrupt(correlationId: string, fence: SessionFence = this.fence()): Promise<void> {
		if (!this.entries.delete(correlationId)) return;
		this.onChange();
		if (fence.lost) return;
		await this.store.decideConfirmation(correlationId, "interrupted", Date.now(), fence.condition);
	}
}

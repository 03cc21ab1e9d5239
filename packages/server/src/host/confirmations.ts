import type { ApprovalAnswer, PendingConfirmation } from "@omniloop/core";
import { type SessionFence, UNFENCED } from "../coordination/session-fence.js";
import type { RecordedDecision, Store } from "../store/store.js";

export type { PendingConfirmation };

/** Kept until its answer reaches the engine's `approve` (`wait`), however early it came. */
interface Entry {
	confirmation: PendingConfirmation;
	/** The answer that stands, once the store says so: what `approve` gets. */
	decision: ApprovalAnswer | undefined;
	/** An answer given here on its way to the store: the decision that stands, once there. */
	deciding: Promise<RecordedDecision> | undefined;
	/** Another process's answer, come while `deciding`: it stands if this one's write fails. */
	settledElsewhere: ApprovalAnswer | undefined;
	resolve: ((answer: ApprovalAnswer) => void) | undefined;
	/** Its row's insert, settled: a decision written before it lands would change no row. */
	written: Promise<void>;
}

/** How many settled confirmations a Session remembers, to answer a late answer without the store. */
const REMEMBERED = 64;

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
	/**
	 * The decisions that stand for confirmations settled here, latest last: a late answer learns
	 * its decision even while the row's writes are still on their way (or were fenced out).
	 */
	private readonly settled = new Map<string, RecordedDecision>();

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
		const written = this.store.addConfirmation({ ...confirmation, sessionId: this.sessionId }, fence.condition);
		this.entries.set(confirmation.correlationId, {
			confirmation,
			decision: undefined,
			deciding: undefined,
			settledElsewhere: undefined,
			resolve: undefined,
			written: written.then(
				() => {},
				() => {},
			),
		});
		this.onChange();
		return written;
	}

	/** Settles with the person's answer; `signal` firing ends the wait (the Task was aborted). */
	wait(correlationId: string, signal: AbortSignal): Promise<ApprovalAnswer> {
		const entry = this.entries.get(correlationId);
		if (entry === undefined) return Promise.resolve("deny");
		if (entry.decision !== undefined) {
			this.entries.delete(correlationId);
			return Promise.resolve(entry.decision);
		}
		if (signal.aborted) {
			void this.interrupt(correlationId);
			return Promise.resolve("deny");
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
			const known = this.settled.get(correlationId);
			if (known !== undefined) return { kind: "already", decision: known };
			const stored = await this.store.getConfirmation(correlationId);
			if (stored === undefined || stored.sessionId !== this.sessionId) return { kind: "unknown" };
			return { kind: "already", decision: stored.decision ?? "interrupted" };
		}
		if (entry.decision !== undefined) return { kind: "already", decision: entry.decision };
		// A second answer here while the first is on its way learns the one that stands — or, the
		// first's write having failed, is recorded itself.
		if (entry.deciding !== undefined) {
			try {
				return { kind: "already", decision: await entry.deciding };
			} catch {
				return this.decide(correlationId, decision);
			}
		}
		entry.deciding = this.record(correlationId, entry, decision);
		this.onChange();
		const standing = await entry.deciding;
		return standing === decision ? { kind: "decided" } : { kind: "already", decision: standing };
	}

	/**
	 * Writes the answer once the row is in; what the store says stands (another process may have
	 * recorded an answer first) is what `approve` gets — never the answer before the store agreed.
	 * A write that fails leaves the confirmation pending, to be answered again.
	 */
	private async record(correlationId: string, entry: Entry, decision: ApprovalAnswer): Promise<RecordedDecision> {
		try {
			await entry.written;
			const standing = await this.store.decideConfirmation(correlationId, decision, Date.now());
			entry.decision = standing === "interrupted" ? "deny" : standing;
			this.remember(correlationId, standing);
			this.answer(correlationId, entry);
			return standing;
		} catch (error) {
			entry.deciding = undefined;
			const elsewhere = entry.settledElsewhere;
			if (elsewhere === undefined) {
				this.onChange();
				throw error;
			}
			// The store holds another process's answer: it stands (its notice came meanwhile).
			entry.decision = elsewhere;
			this.remember(correlationId, elsewhere);
			this.answer(correlationId, entry);
			return elsewhere;
		}
	}

	/** An answer another server process recorded in the store already: the waiting call gets it. */
	settle(correlationId: string, decision: ApprovalAnswer): void {
		const entry = this.entries.get(correlationId);
		if (entry === undefined || entry.decision !== undefined) return;
		// An answer given here on its way to the store learns from the store which one stands;
		// this one is kept in case that write fails.
		if (entry.deciding !== undefined) {
			entry.settledElsewhere = decision;
			return;
		}
		entry.decision = decision;
		this.remember(correlationId, decision);
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
		return [...this.entries.values()]
			.filter((e) => e.decision === undefined && e.deciding === undefined)
			.map((e) => e.confirmation);
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
		const entry = this.entries.get(correlationId);
		if (entry === undefined) return;
		this.entries.delete(correlationId);
		this.remember(correlationId, "interrupted");
		this.onChange();
		if (fence.lost) return;
		await entry.written;
		await this.store.decideConfirmation(correlationId, "interrupted", Date.now(), fence.condition);
	}

	private remember(correlationId: string, decision: RecordedDecision): void {
		this.settled.delete(correlationId);
		this.settled.set(correlationId, decision);
		if (this.settled.size > REMEMBERED) this.settled.delete(this.settled.keys().next().value as string);
	}
}

import type { ApprovalAnswer } from "@omniloop/core";
import type pg from "pg";
import type { ControlHandler, SessionAction, WorkflowAction } from "../coordination/coordinator.js";
import type { DecideResult, PendingConfirmation } from "../host/confirmations.js";
import type { Store } from "../store/store.js";
import type { Notifications } from "./events/notifications.js";
import { type HeldLease, SessionActions, type TakenAction } from "./session-actions.js";

/**
 * The channel of requests for a Task another process runs: `<sessionId> answer <correlationId>
 * <always|once>`, `<sessionId> actions` (a steer or abort is recorded: take it) or `workflow
 * <resume|cancel> <workflowId>`. A notification is a hint; the records are in the store.
 */
export const CONTROL_CHANNEL = "omniloop_control";

/**
 * A Task's controls across processes. An answer to a confirmation is recorded in the store (the
 * first one wins, as in one process), then a notification tells the process whose Task waits,
 * which reads it back. A steer or abort is recorded for the Task the Session's live lease runs
 * (session-actions.ts), then notified: the holder takes it on the notification or at its next
 * renewal; if the holder died, the process that takes its Task over takes it (`begin`).
 */
export class RemoteControl {
	private readonly handlers = new Map<string, ControlHandler>();
	private workflowHandler: (workflowId: string, action: WorkflowAction) => void = () => {};
	private readonly actions: SessionActions;
	/** The epoch under which each Session's Task started here (`begun`): only a started Task takes actions as they come. */
	private readonly started = new Map<string, number>();

	constructor(
		private readonly pool: pg.Pool,
		notifications: Notifications,
		private readonly store: Store,
		/** Does a live process hold the Session (run its Task)? A dead one's questions are over. */
		private readonly held: (sessionId: string) => Promise<boolean>,
		/** The epoch under which this process holds the Session now (undefined: it does not). */
		private readonly epoch: (sessionId: string) => number | undefined,
		private readonly report: (error: unknown) => void,
	) {
		this.actions = new SessionActions(pool);
		void notifications.listen(CONTROL_CHANNEL, (payload) => void this.notified(payload));
	}

	/** The Session's Task runs here: answers given elsewhere reach `handler`. */
	watch(sessionId: string, handler: ControlHandler): void {
		this.handlers.set(sessionId, handler);
	}

	/** Actions on workflows taken on other processes reach `handler` (which ignores those it does not drive). */
	watchWorkflows(handler: (workflowId: string, action: WorkflowAction) => void): void {
		this.workflowHandler = handler;
	}

	/** Asks the process whose Task of the workflow waits to carry out `action` (recorded in the store first). */
	async workflow(workflowId: string, action: WorkflowAction): Promise<void> {
		await this.notify(`workflow ${action} ${workflowId}`);
	}

	/**
	 * Aborts the Session's Task wherever a live lease runs it (this process included): recorded,
	 * then notified. False when no live process holds the Session (nothing to abort, as in one process).
	 */
	abortIfHeld(sessionId: string): Promise<boolean> {
		return this.post(sessionId, { kind: "abort" });
	}

	/** Steers the Session's Task wherever a live lease runs it; false when none does. */
	steerIfHeld(sessionId: string, text: string): Promise<boolean> {
		return this.post(sessionId, { kind: "steer", text });
	}

	/**
	 * A Task begins here under the Session's lease: the actions recorded for it (or, when it
	 * continues the Task a dead holder ran, for that one) are taken and returned, to be carried
	 * out as it starts. A new Task drops what was recorded for earlier ones.
	 */
	async begin(sessionId: string, continues: boolean): Promise<SessionAction[]> {
		const epoch = this.epoch(sessionId);
		if (epoch === undefined) return [];
		if (!continues) await this.actions.dropEarlier({ sessionId, epoch });
		return (await this.actions.take([{ sessionId, epoch }])).map((taken) => taken.action);
	}

	/**
	 * The Task started here under the Session's current lease. Until then a notification takes
	 * nothing (a steer before the Task's start would be refused); what comes meanwhile waits for
	 * the next renewal.
	 */
	begun(sessionId: string): void {
		const epoch = this.epoch(sessionId);
		if (epoch !== undefined) this.started.set(sessionId, epoch);
	}

	/** Takes what was recorded for the Tasks running here (a notification may have been lost): each lease renewal. */
	async takeRecorded(sessionIds: readonly string[]): Promise<void> {
		const leases: HeldLease[] = [];
		for (const sessionId of sessionIds) {
			const epoch = this.epoch(sessionId);
			if (epoch !== undefined && this.started.get(sessionId) === epoch) leases.push({ sessionId, epoch });
		}
		if (leases.length === 0) return;
		try {
			this.carryOut(await this.actions.take(leases));
		} catch (error) {
			this.report(error);
		}
	}

	/** The Session is deleted: its recorded actions go. */
	deleteSession(sessionId: string): Promise<void> {
		this.started.delete(sessionId);
		return this.actions.deleteSession(sessionId);
	}

	/** Aborts the Session's Task in this process (its lease was lost). */
	abortHere(sessionId: string): void {
		this.handlers.get(sessionId)?.abort();
	}

	/** Confirmations of a Task that runs elsewhere, as the store has them. */
	async pending(sessionId: string): Promise<PendingConfirmation[]> {
		if (!(await this.held(sessionId))) return [];
		return (await this.store.pendingConfirmations(sessionId)).map(
			({ correlationId, callId, name, arguments: args, requestedAt }) => ({
				correlationId,
				callId,
				name,
				arguments: args,
				requestedAt,
			}),
		);
	}

	/** An answer for a Task another process runs. */
	async answer(
		sessionId: string,
		correlationId: string,
		decision: ApprovalAnswer,
		always: boolean,
	): Promise<DecideResult> {
		const stored = await this.store.getConfirmation(correlationId);
		if (stored === undefined || stored.sessionId !== sessionId) return { kind: "unknown" };
		if (stored.decision !== null) return { kind: "already", decision: stored.decision };
		// Its Task died with its process (the store marks that at the next claim): as after a restart.
		if (!(await this.held(sessionId))) return { kind: "already", decision: "interrupted" };
		const standing = await this.store.decideConfirmation(correlationId, decision, Date.now());
		if (standing !== decision) return { kind: "already", decision: standing };
		await this.notify(`${sessionId} answer ${correlationId} ${always ? "always" : "once"}`);
		return { kind: "decided" };
	}

	private async post(sessionId: string, action: SessionAction): Promise<boolean> {
		if (!(await this.actions.record(sessionId, action))) return false;
		await this.notify(`${sessionId} actions`);
		return true;
	}

	private carryOut(taken: readonly TakenAction[]): void {
		for (const { sessionId, action } of taken) {
			const handler = this.handlers.get(sessionId);
			if (action.kind === "abort") handler?.abort();
			else handler?.steer(action.text);
		}
	}

	private async notify(payload: string): Promise<void> {
		await this.pool.query("select pg_notify($1, $2)", [CONTROL_CHANNEL, payload]);
	}

	private async notified(payload: string): Promise<void> {
		const [sessionId = "", kind, correlationId = "", always] = payload.split(" ");
		if (sessionId === "workflow") {
			if (kind === "resume" || kind === "cancel") this.workflowHandler(correlationId, kind);
			return;
		}
		if (kind === "actions") {
			await this.takeRecorded([sessionId]);
			return;
		}
		const handler = this.handlers.get(sessionId);
		if (handler === undefined) return;
		try {
			const stored = await this.store.getConfirmation(correlationId);
			if (stored?.decision === "allow" || stored?.decision === "deny") {
				handler.answered(correlationId, stored.decision, always === "always");
			}
		} catch (error) {
			this.report(error);
		}
	}
}

import type { ApprovalAnswer } from "@omniloop/core";
import type pg from "pg";
import type { ControlHandler, WorkflowAction } from "../coordination/coordinator.js";
import { HttpError } from "../errors.js";
import type { DecideResult, PendingConfirmation } from "../host/confirmations.js";
import type { Store } from "../store/store.js";
import type { Notifications } from "./notifications.js";

/**
 * The channel of requests for a Task another process runs: `<sessionId> answer <correlationId>
 * <always|once>`, `<sessionId> abort` or `<sessionId> steer <text as JSON>`.
 */
export const CONTROL_CHANNEL = "omniloop_control";

/** NOTIFY payloads stop at 8000 bytes; a steer must leave room for the Session id. */
const MAX_STEER_BYTES = 7000;

/**
 * A Task's controls across processes. An answer to a confirmation is recorded in the store (the
 * first one wins, as in one process), then a notification tells the process whose Task waits,
 * which reads it back; an abort goes to the process holding the Session's lease.
 */
export class RemoteControl {
	private readonly handlers = new Map<string, ControlHandler>();
	private workflowHandler: (workflowId: string, action: WorkflowAction) => void = () => {};

	constructor(
		private readonly pool: pg.Pool,
		notifications: Notifications,
		private readonly store: Store,
		/** Does a live process hold the Session (run its Task)? A dead one's questions are over. */
		private readonly held: (sessionId: string) => Promise<boolean>,
		private readonly report: (error: unknown) => void,
	) {
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

	/** Aborts the Session's Task if a live process runs it (this one included); false when none does. */
	async abortIfHeld(sessionId: string): Promise<boolean> {
		if (!(await this.held(sessionId))) return false;
		await this.abort(sessionId);
		return true;
	}

	/** Steers the Session's Task if a live process runs it; false when none does. */
	async steerIfHeld(sessionId: string, text: string): Promise<boolean> {
		if (!(await this.held(sessionId))) return false;
		await this.steer(sessionId, text);
		return true;
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

	/** Asks the process running the Session's Task (another one) to abort it. */
	async abort(sessionId: string): Promise<void> {
		await this.notify(`${sessionId} abort`);
	}

	/** Hands steering text to the process running the Session's Task (another one). */
	async steer(sessionId: string, text: string): Promise<void> {
		const encoded = JSON.stringify(text);
		if (Buffer.byteLength(encoded) > MAX_STEER_BYTES) {
			throw new HttpError(
				"payload_too_large",
				`text: the Task runs in another server process, which takes steering text up to ${MAX_STEER_BYTES} bytes`,
			);
		}
		await this.notify(`${sessionId} steer ${encoded}`);
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
		const handler = this.handlers.get(sessionId);
		if (handler === undefined) return;
		if (kind === "abort") {
			handler.abort();
			return;
		}
		if (kind === "steer") {
			handler.steer(JSON.parse(payload.slice(payload.indexOf(" steer ") + 7)) as string);
			return;
		}
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

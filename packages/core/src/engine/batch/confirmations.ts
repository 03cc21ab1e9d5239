import { randomUUID } from "node:crypto";
import { makeMessage } from "../../messages/constructors.js";
import type { OmniMessage, ToolCall } from "../../messages/omni-message.js";
import type { TracePersist } from "./trace-persist.js";

/** What announcing confirmations needs from the batch's Task. */
export interface ConfirmationHost {
	emit(message: OmniMessage): void;
	readonly persistTrace: TracePersist;
	/** Settles once the host has read the call from the stream. */
	delivered(call: ToolCall): Promise<void>;
}

/**
 * The announcements of a turn's calls that wait on a person: which calls were announced and the
 * correlation id of each. How a turn tells its hosts: one `confirmation_required` per call,
 * in the stream and (flushed) in the Trace before `approve` is asked about it, with the
 * correlation id its `approval_decision` will carry. A person is asked only about a call the host
 * has read.
 *
 * One at a time by default. With `askAhead` (durable workflows), the first call that needs a
 * person waits for the model's output to complete and then announces every call of the turn that
 * needs one, in call order, so a person can decide them all at once; `approve` is still called
 * one at a time, in call order.
 */
export class ConfirmationAnnouncements {
	private readonly ids = new Map<string, string>();
	/** Calls whose `confirmation_required` went out (here, or before a restart). */
	private readonly said = new Set<string>();
	private ahead: Promise<void> | undefined;

	constructor(
		private readonly host: ConfirmationHost,
		private readonly askAhead: boolean,
		/** Settles when the model's output has completed: every call of the turn is known. */
		private readonly outputDone: Promise<void>,
		/** Why a call would run without its sandbox (said in its announcement); undefined when it would not. */
		private readonly unsandboxed: (call: ToolCall) => string | undefined,
	) {}

	/** A call was already announced under `correlationId` (by the process before a restart): it is asked under it again. */
	askedBefore(callId: string, correlationId: string): void {
		this.ids.set(callId, correlationId);
		this.said.add(callId);
	}

	/** Whether the call was announced: a person was told it waits on them. */
	announced(callId: string): boolean {
		return this.said.has(callId);
	}

	/** The correlation id a call is (or will be) asked under. */
	idFor(callId: string): string {
		let id = this.ids.get(callId);
		if (id === undefined) {
			id = randomUUID();
			this.ids.set(callId, id);
		}
		return id;
	}

	/**
	 * Announces `call` before a person is asked about it. `waiting` lists the calls of the turn
	 * that will need a person (in call order, `call` first) once the output has completed.
	 */
	announce(call: ToolCall, waiting: () => readonly ToolCall[]): Promise<void> {
		if (!this.askAhead) return this.announceEach([call]);
		this.ahead ??= this.outputDone.then(() => this.announceEach(waiting()));
		return this.ahead;
	}

	private async announceEach(calls: readonly ToolCall[]): Promise<void> {
		for (const call of calls) {
			await this.host.delivered(call);
			this.said.add(call.callId);
			const unsandboxed = this.unsandboxed(call);
			this.host.emit(
				makeMessage("confirmation_required", {
					correlationId: this.idFor(call.callId),
					callId: call.callId,
					name: call.name,
					arguments: call.arguments,
					...(unsandboxed === undefined ? {} : { unsandboxed }),
				}),
			);
		}
		await this.host.persistTrace();
	}
}

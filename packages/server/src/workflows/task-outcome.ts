import type { ConfirmationRequired, Done, OmniMessage, SessionStore } from "@omniloop/core";

/** How a step's Task ended: its `done`, and its last answer to the person (the step's answer). */
export interface TaskOutcome {
	done: Done | undefined;
	lastText: string;
}

/**
 * Watches a workflow Task's stream on its way to the viewers: a `confirmation_required` is
 * recorded (durably) before it is passed on, so a pending approval is in the store by the time
 * the engine asks `approve`; the last answer and the `done` are kept for the step's outcome.
 */
export class TaskObserver {
	readonly outcome: TaskOutcome = { done: undefined, lastText: "" };

	constructor(private readonly onConfirmation: (message: ConfirmationRequired) => Promise<void>) {}

	async *watch(stream: AsyncGenerator<OmniMessage, void, undefined>): AsyncGenerator<OmniMessage, void, undefined> {
		for await (const message of stream) {
			if (message.type === "confirmation_required") await this.onConfirmation(message);
			else if (message.type === "assistant_text") this.outcome.lastText = message.text;
			else if (message.type === "done") this.outcome.done = message;
			yield message;
		}
	}
}

/**
 * How the step that began after `afterSeq` ended, as the Trace shows it (the process died between
 * its `done` and the store's update); undefined when it has no `done` yet.
 */
export function outcomeFromTrace(sessions: SessionStore, sessionId: string, afterSeq: number): TaskOutcome | undefined {
	const outcome: TaskOutcome = { done: undefined, lastText: "" };
	for (const message of sessions.history(sessionId, { after: afterSeq })) {
		if (message.type === "assistant_text") outcome.lastText = message.text;
		else if (message.type === "done") outcome.done = message;
	}
	return outcome.done === undefined ? undefined : outcome;
}

/** The correlation ids the Session's Trace holds a `confirmation_required` for: the questions that were durably asked. */
export function askedInTrace(sessions: SessionStore, sessionId: string): Set<string> {
	const ids = new Set<string>();
	for (const message of sessions.history(sessionId)) {
		if (message.type === "confirmation_required") ids.add(message.correlationId);
	}
	return ids;
}

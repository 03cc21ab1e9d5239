import type { ConfirmationRequired, Done, OmniMessage, SessionStore } from "@omniloop/core";
import type { SessionListener } from "../host/log/session-log.js";

/** How a step's Task ended: its `done`, and its last answer to the person (the step's answer). */
export interface TaskOutcome {
	done: Done | undefined;
	lastText: string;
}

/**
 * Watches a workflow Task: the last answer and the `done`, from its stream, for the step's
 * outcome; and each `confirmation_required` as its Session's log hands it to its readers
 * (`follower`), so once it is durable: a question is recorded in the store only after the event
 * log holds it (docs/cluster.md), or a taker would find a pending approval its Task never asked
 * and ask again under a new id, one call getting two decisions.
 */
export class TaskObserver {
	readonly outcome: TaskOutcome = { done: undefined, lastText: "" };
	readonly follower: SessionListener = {
		message: (message) => {
			if (message.type === "confirmation_required") this.onConfirmation(message).catch(this.report);
		},
	};

	constructor(
		private readonly onConfirmation: (message: ConfirmationRequired) => Promise<void>,
		private readonly report: (error: unknown) => void,
	) {}

	async *watch(stream: AsyncGenerator<OmniMessage, void, undefined>): AsyncGenerator<OmniMessage, void, undefined> {
		for await (const message of stream) {
			if (message.type === "assistant_text") this.outcome.lastText = message.text;
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

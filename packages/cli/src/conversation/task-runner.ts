import { type Done, type OmniMessage, userText } from "@omniloop/core";
import type { Conversation } from "./conversation.js";

/**
 * Shows a stream and keeps the Session's usage up to date; returns the Task's own `done` (a
 * subagent's carries an origin). The view is settled however the stream ends.
 */
export async function play(conversation: Conversation, stream: AsyncIterable<OmniMessage>): Promise<Done | undefined> {
	let done: Done | undefined;
	conversation.used = true;
	try {
		for await (const message of stream) {
			conversation.view.show(message);
			if (message.origin !== undefined) continue;
			if (message.type === "token_usage") conversation.usage = message.session;
			if (message.type === "done") {
				done = message;
				conversation.usage = message.sessionUsage;
			}
		}
	} finally {
		conversation.view.end();
	}
	return done;
}

/** Runs one Task; Ctrl-C aborts it (the engine keeps the carry-over) and `notice` says so. */
export async function runTask(conversation: Conversation, prompt: string, notice: string): Promise<Done | undefined> {
	const { session } = conversation.opened;
	const { thinking } = conversation.options;
	const controller = conversation.interrupts.begin(notice);
	try {
		return await play(
			conversation,
			session.run([userText(prompt)], {
				approve: conversation.approver.approve,
				signal: controller.signal,
				...(thinking === undefined ? {} : { thinkingLevel: thinking }),
			}),
		);
	} finally {
		conversation.interrupts.end(controller);
	}
}

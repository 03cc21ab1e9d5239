import { errorMessage } from "@omniloop/core/internal";
import type { Conversation } from "../conversation/conversation.js";
import type { LineRoute } from "../terminal/line-input.js";

/**
 * While a Task runs: a message steers it; an empty one ends a reconnect wait early; a /command
 * and a message the Task can no longer take (it is ending) wait for the prompt.
 */
export function steeringRoute(conversation: Conversation): LineRoute {
	const { session } = conversation.opened;
	const { screen } = conversation;
	const dim = screen.err.style.dim;
	return (line) => {
		const text = line.trim();
		if (text === "") {
			session.skipReconnectWait();
			return true;
		}
		if (text.startsWith("/")) {
			screen.notice(dim(`(${text.split(/\s/)[0]} runs when this Task ends)`));
			return false;
		}
		// Sent as written: a person's spacing and line breaks are part of the message.
		const accepted = session.steer(line);
		if (accepted === true) {
			screen.notice(dim("↳ steering: the model sees this at its next turn"));
			return true;
		}
		if (accepted === false) {
			screen.notice(dim("(the Task is ending: this becomes your next message)"));
			return false;
		}
		// Attached to a server: its answer comes later; a refused steer is queued as the next message.
		accepted.then(
			(taken) => {
				if (taken) screen.notice(dim("↳ steering: the model sees this at its next turn"));
				else {
					screen.notice(dim("(the Task is ending: this becomes your next message)"));
					conversation.input.enqueue(line);
				}
			},
			(error: unknown) => screen.warn(`the steer was not sent: ${errorMessage(error)}`),
		);
		return true;
	};
}

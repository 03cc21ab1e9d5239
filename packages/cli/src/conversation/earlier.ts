import { showHistory } from "../session/session-history.js";
import type { Conversation } from "./conversation.js";

/** A resumed Session: the conversation so far, so the next message has its context on screen too. */
export function showEarlier(conversation: Conversation): void {
	const { home, session } = conversation.opened;
	showHistory(
		home,
		session.id,
		conversation.screen,
		(file) => (file.n === 1 ? "── earlier in this Session ──" : `── compacted: trace file ${file.n} of ${file.of} ──`),
		conversation.historyView,
	);
	conversation.screen.out.line(conversation.screen.out.style.dim("── resumed here ──"));
}

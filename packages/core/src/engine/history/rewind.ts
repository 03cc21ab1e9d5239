import { wholeMarker } from "../../messages/markers.js";
import type { OmniMessage, UserText } from "../../messages/omni-message.js";

/**
 * A Trace's messages less what its rewinds took back: a `session_rewound` at seq R to `toSeq` T
 * drops every message from T up to R (the Trace itself stays append-only). The context rebuilt
 * from what is left is the one the Session had after the rewind. See docs/checkpoints.md.
 */
export function withoutRewound(messages: readonly OmniMessage[]): OmniMessage[] {
	if (!messages.some((m) => m.type === "session_rewound")) return [...messages];
	let kept: OmniMessage[] = [];
	for (const message of messages) {
		if (message.type === "session_rewound") {
			const { toSeq } = message;
			kept = kept.filter((m) => m.seq < toSeq);
		} else kept.push(message);
	}
	return kept;
}

/**
 * The person's messages in the context a Session's history leaves (what a rewind or a fork may go
 * back to): those since its last compaction, less what its rewinds took back. For a host that
 * reads the history over the wire (the CLI attached to a server) rather than holding the Session.
 */
export function personMessagesInContext(history: readonly OmniMessage[]): UserText[] {
	const compacted = history.findLastIndex((m) => m.type === "compaction_end" && m.status === "ok");
	return withoutRewound(history.slice(compacted + 1)).filter(isPersonsMessage);
}

/**
 * A message the person wrote: a prompt or a steer, not a subagent's prompt (it has an origin) nor
 * a note of the engine's — a text that is one marker block other than a steer's (`[turn_aborted]`,
 * `[context_summary]`, a restart note): what a rewind or fork picker offers.
 */
export function isPersonsMessage(message: OmniMessage): message is UserText {
	if (message.type !== "user_text" || message.origin !== undefined) return false;
	if (message.steer !== undefined) return true;
	const block = wholeMarker(message.text);
	return block === undefined || block.tag === "user_steering";
}

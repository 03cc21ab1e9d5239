import type { OmniMessage } from "../../messages/omni-message.js";

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

import { describe, expect, it } from "vitest";
import { assistantText, makeMessage, userText } from "../../messages/constructors.js";
import type { OmniMessage } from "../../messages/omni-message.js";
import { personMessagesInContext } from "./rewind.js";

/** The messages with their seqs in order, as a history reads. */
const numbered = (messages: OmniMessage[]): OmniMessage[] => messages.map((m, i) => ({ ...m, seq: i + 1 }));
const texts = (history: OmniMessage[]) => personMessagesInContext(history).map((m) => m.text);

describe("personMessagesInContext: the messages a rewind or a fork may go back to, from a history", () => {
	it("leaves out what a rewind took back, and a subagent's own user texts", () => {
		const history = numbered([
			userText("one"),
			assistantText("a"),
			userText("two"),
			assistantText("b"),
			{ ...userText("the subagent's task"), origin: { sessionId: "sub", agentId: "x", parentCallId: "c" } },
		]);
		expect(texts(history)).toEqual(["one", "two"]);
		const rewound = numbered([...history, makeMessage("session_rewound", { toSeq: 3 }), userText("three")]);
		expect(texts(rewound)).toEqual(["one", "three"]);
	});

	it("starts after the last compaction that ended ok (a failed one keeps the context)", () => {
		const history = numbered([
			userText("before"),
			makeMessage("compaction_end", { status: "failed", error: { kind: "fatal", message: "no" } }),
			userText("still in"),
		]);
		expect(texts(history)).toEqual(["before", "still in"]);
		const compacted = numbered([...history, makeMessage("compaction_end", { status: "ok" }), userText("after")]);
		expect(texts(compacted)).toEqual(["after"]);
	});
});

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

	it("leaves out the engine's notes (a cut-off turn, a summary), keeps steers and a person's text around a marker", () => {
		const history = numbered([
			userText("slow please"),
			userText("[turn_aborted]The user interrupted this turn before the model finished its response.[/turn_aborted]"),
			userText("[context_summary]what came before[/context_summary]"),
			{ ...userText("[user_steering]shorter[/user_steering]"), steer: "shorter" },
			userText("[user_steering]an old Trace's steer[/user_steering]"),
			userText("see [turn_aborted]x[/turn_aborted] above"),
		]);
		expect(texts(history)).toEqual([
			"slow please",
			"[user_steering]shorter[/user_steering]",
			"[user_steering]an old Trace's steer[/user_steering]",
			"see [turn_aborted]x[/turn_aborted] above",
		]);
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

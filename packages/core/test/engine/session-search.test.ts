import { describe, expect, it } from "vitest";
import { assistantText, userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { findText } from "../../src/session-store/session-search.js";

const numbered = (messages: OmniMessage[]) => messages.map((m, i) => ({ ...m, seq: i + 1 }));

describe("searching a Session's text", () => {
	it("finds the first message of the person or the agent holding the words, case-insensitively, with a snippet", () => {
		const long = `${"before ".repeat(20)}the Lisbon   TRIP\nplan${" after".repeat(20)}`;
		const messages = numbered([userText("hello"), assistantText(long), userText("lisbon trip again")]);
		const match = findText(messages, "  lisbon trip ");
		expect(match?.seq).toBe(2);
		expect(match?.snippet).toMatch(/^….* the Lisbon TRIP plan after .*…$/);
		expect(match?.snippet.length).toBeLessThan(110);
		expect(findText(messages, "nowhere")).toBeUndefined();
		expect(findText(messages, "   ")).toBeUndefined();
	});

	it("leaves out tool outputs and a subagent's messages", () => {
		const origin = { sessionId: "sub", agentId: "helper", parentCallId: "c1" };
		const messages = numbered([
			{ ...assistantText("secret plan"), origin },
			{
				type: "tool_call_output",
				id: "o",
				ts: 0,
				seq: 0,
				callId: "c1",
				name: "read_file",
				output: "secret plan",
				status: "ok",
			},
		]);
		expect(findText(messages, "secret")).toBeUndefined();
	});

	it("reads an answer's markdown as it shows: the snippet and the match have no fences, heading or bold marks", () => {
		const answer =
			"## Section 7\n\n```ts\nconst x = 1;\n```\n\nThe **retry** logic lives in [the loop](https://x.example/loop).";
		const messages = numbered([assistantText(answer)]);
		expect(findText(messages, "section 7 const x")?.snippet).toBe(
			"Section 7 const x = 1; The retry logic lives in the loop.",
		);
		expect(findText(messages, "retry logic")).toBeDefined();
		expect(findText(messages, "x.example")).toBeUndefined();
	});
});

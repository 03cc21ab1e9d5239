import { describe, expect, it } from "vitest";
import { assistantText, toolCall, toolCallOutput, userText } from "../../messages/constructors.js";
import { writeMarker } from "../../messages/markers.js";
import type { ModelMessage } from "../../messages/omni-message.js";
import { planReply } from "./demo-model.js";
import { estimateUsage } from "./demo-usage.js";

/** A Task that has listed the folder and read README.md. */
function afterRead(): ModelMessage[] {
	return [
		userText("what is here?"),
		assistantText("First, what is in this folder:"),
		toolCall("c1", "list_dir", "{}"),
		toolCallOutput({ callId: "c1", name: "list_dir" }, "README.md\nsrc/", "ok"),
		assistantText("Now I'll read README.md:"),
		toolCall("c2", "read_file", '{"path":"README.md"}'),
		toolCallOutput({ callId: "c2", name: "read_file" }, "     1\t# Title\n     2\tText.", "ok"),
	];
}

describe("the offline demo's script", () => {
	it("counts lines, then words with a second shell call (so 'always' is seen to hold), then sums up", () => {
		const messages = afterRead();
		expect(planReply(messages).call).toEqual({ name: "shell", args: { command: "wc -l README.md" } });
		messages.push(
			toolCall("c3", "shell", "{}"),
			toolCallOutput({ callId: "c3", name: "shell" }, "2 README.md\n[exit code 0]", "ok"),
		);
		expect(planReply(messages).call).toEqual({ name: "shell", args: { command: "wc -w README.md" } });
		messages.push(
			toolCall("c4", "shell", "{}"),
			toolCallOutput({ callId: "c4", name: "shell" }, "3 README.md\n[exit code 0]", "ok"),
		);
		const last = planReply(messages);
		expect(last.call).toBeUndefined();
		expect(last.text).toContain("It has 2 lines and 3 words, say wc -l and wc -w.");
	});

	it("steering sent while it works is repeated in its next reply; one that says stop ends the Task there", () => {
		const messages = afterRead();
		messages.push(userText(writeMarker("user_steering", "look at src/ too")));
		const heard = planReply(messages);
		expect(heard.text).toMatch(/^You said "look at src\/ too"; a script cannot act on that/);
		expect(heard.call?.name).toBe("shell");

		messages.push(assistantText(heard.text), userText(writeMarker("user_steering", "stop, that's enough")));
		const stopped = planReply(messages);
		expect(stopped.call).toBeUndefined();
		expect(stopped.text).toMatch(/^You said "stop, that's enough", so I'm stopping here\. \(offline demo\)/);
		expect(stopped.text).toContain("I stopped before counting its lines.");
	});

	it("counts tokens as a provider would: text, not JSON; the earlier requests' part as cached", () => {
		const messages = afterRead();
		const reply = planReply(messages);
		const usage = estimateUsage({ messages, tools: [], purpose: "turn" }, reply);
		const text = messages.map((m) => JSON.stringify(m)).join("").length;
		expect(usage.input).toBeLessThan(text / 4);
		expect(usage.cacheRead).toBeGreaterThan(0);
		expect(usage.cacheRead).toBeLessThan(usage.input);
		expect(usage.total).toBe(usage.input + usage.output);
		const first = estimateUsage(
			{ messages: [userText("hi")], tools: [], purpose: "turn" },
			planReply([userText("hi")]),
		);
		expect(first.cacheRead).toBe(0);
		expect(first.reasoning).toBeGreaterThan(0);
		expect(first.output).toBeGreaterThan(first.reasoning);
	});
});

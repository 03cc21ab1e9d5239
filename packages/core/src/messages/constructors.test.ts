import { describe, expect, it } from "vitest";
import {
	addUsage,
	deniedOutput,
	emptyUsage,
	makeMessage,
	toolCall,
	toolCallOutput,
	toUsage,
	userText,
} from "./constructors.js";
import { isModelMessage, isPartialMessage } from "./omni-message.js";

describe("message constructors", () => {
	it("give each message a fresh id, a timestamp and seq 0 until emitted", () => {
		const a = userText("hi");
		const b = userText("hi");
		expect(a.id).not.toBe(b.id);
		expect(a).toMatchObject({ type: "user_text", text: "hi", seq: 0 });
		expect(Math.abs(a.ts - Date.now())).toBeLessThan(1000);
	});

	it("keep tool-call arguments as the JSON text the model wrote", () => {
		expect(toolCall("c1", "read_file", '{"path": "a"}').arguments).toBe('{"path": "a"}');
		expect(toolCall("c1", "read_file", { path: "a" }).arguments).toBe('{"path":"a"}');
	});

	it("pair outputs to their call and word a denial as the spec does", () => {
		const call = toolCall("c9", "shell", { cmd: "ls" });
		expect(toolCallOutput(call, "x")).toMatchObject({ callId: "c9", name: "shell", status: "ok" });
		expect(deniedOutput(call)).toMatchObject({ status: "denied", output: "Tool call denied by user." });
	});

	it("survive a JSON round trip unchanged", () => {
		const messages = [
			userText("a"),
			makeMessage("request_end", { status: "timeout", retry_in_ms: 250, attempt: 1 }),
			makeMessage("partial_tool_call", { callId: "c", name: "n", delta: '{"' }),
		];
		expect(JSON.parse(JSON.stringify(messages))).toEqual(messages);
	});

	it("sort messages into model messages and partials", () => {
		expect(isModelMessage(userText("a"))).toBe(true);
		expect(isModelMessage(makeMessage("abort", { carryOver: "A" }))).toBe(false);
		expect(isPartialMessage(makeMessage("partial_text", { delta: "x" }))).toBe(true);
	});

	it("add usage and default total to input + output", () => {
		const u = addUsage(emptyUsage(), toUsage({ input: 10, output: 5, cacheRead: 4 }));
		addUsage(u, toUsage({ input: 1, output: 1 }));
		expect(u).toEqual({ input: 11, output: 6, cacheRead: 4, cacheWrite: 0, reasoning: 0, total: 17 });
	});
});

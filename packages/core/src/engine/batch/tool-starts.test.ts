import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolCall } from "../../messages/omni-message.js";
import { type Tool, tool } from "../../tools/tool.js";
import { Interruptible } from "../task/interruptible.js";
import { type ReadyCall, ToolStarts } from "./tool-starts.js";

function ready(callId: string, made: Tool): ReadyCall {
	const call = { id: callId, ts: 0, seq: 0, type: "tool_call", callId, name: made.name, arguments: "{}" } as ToolCall;
	return { call, prepared: { kind: "ready", tool: made, args: {} } };
}

const reader = tool({
	name: "read",
	description: "reads",
	parameters: z.object({}),
	readOnly: true,
	execute: async () => "",
});
const writer = tool({ name: "write", description: "writes", parameters: z.object({}), execute: async () => "" });
/** Read-only to the approval policy, yet its work may change files (a subagent's delegation). */
const delegate: Tool = { ...reader, name: "agent__helper", changesFiles: true };

function startsOf() {
	const started: string[] = [];
	const emitted: string[] = [];
	const host = {
		interrupt: new Interruptible(new AbortController().signal),
		emit: (message: { type: string }) => emitted.push(message.type),
		persistTrace: () => undefined,
		guard: () => {},
		fail: (error: unknown) => {
			throw error;
		},
		checkpoint: undefined,
	};
	return { started, emitted, starts: new ToolStarts(host, ({ call }) => started.push(call.callId)) };
}

const macrotasks = async (n: number) => {
	for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("ToolStarts", () => {
	it("starts a read-only call allowed mid-stream at the next macrotask, before the output completes", async () => {
		const { started, starts } = startsOf();
		starts.allowed(ready("r1", reader));
		expect(started).toEqual([]);
		await macrotasks(1);
		expect(started).toEqual(["r1"]);
	});

	it("holds a call that may change files until the model's output completes — a subagent's delegation too, read-only as it is to the approval policy", async () => {
		const { started, emitted, starts } = startsOf();
		starts.allowed(ready("w1", writer));
		starts.allowed(ready("d1", delegate));
		await macrotasks(3);
		expect(started).toEqual([]);
		expect(emitted).toEqual([]);
		starts.outputComplete();
		expect(started).toEqual(["w1", "d1"]);
		expect(emitted).toEqual(["tool_start", "tool_start"]);
	});

	it("holds a read-only call a person was asked about until the output completes: only one that needed no approval starts mid-stream", async () => {
		const { started, starts } = startsOf();
		starts.allowed(ready("asked", reader), true);
		starts.allowed(ready("free", reader));
		await macrotasks(3);
		expect(started).toEqual(["free"]);
		starts.outputComplete();
		expect(started).toEqual(["free", "asked"]);
	});

	it("never starts a held call when the turn is given up", async () => {
		const { started, starts } = startsOf();
		starts.allowed(ready("d1", delegate));
		starts.cancel();
		starts.outputComplete();
		await macrotasks(2);
		expect(started).toEqual([]);
	});
});

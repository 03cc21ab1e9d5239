import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { DENIED_OUTPUT, UNANSWERED_OUTPUT } from "../../src/messages/constructors.js";
import type { ToolCall } from "../../src/messages/omni-message.js";
import { createGate } from "../../src/model/gate.js";
import { callTool, say, wait } from "../../src/model/scripted.js";
import { tool } from "../../src/tools/tool.js";
import { cleanup, harness, ofType, runText, tracedMessages, types } from "../harness.js";

afterEach(cleanup);

const write = tool({ name: "write", description: "w", parameters: z.object({}), execute: async () => "wrote" });

describe("confirmation_required (docs/protocol.md §5.2)", () => {
	it("a call that waits on a person emits confirmation_required, in the stream and the Trace, before approve is asked; the decision carries its correlationId", async () => {
		const { session, home } = await harness([[callTool("write", {}, "w1")], [say("ok")]], { tools: [write] });
		const asked: { call: ToolCall; correlationId: string; onDisk: string[] }[] = [];
		const out = await runText(session, "go", {
			approve: async (call, { correlationId }) => {
				asked.push({ call, correlationId, onDisk: types(tracedMessages(home, session.id)) });
				return "allow";
			},
		});
		const [required] = ofType(out, "confirmation_required");
		expect(required).toMatchObject({ callId: "w1", name: "write", arguments: "{}" });
		expect(asked).toHaveLength(1);
		expect(asked[0]?.correlationId).toBe(required?.correlationId);
		expect(asked[0]?.onDisk.at(-1)).toBe("confirmation_required");
		const [decision] = ofType(out, "approval_decision");
		expect(decision).toMatchObject({ by: "user", decision: "allow", correlationId: required?.correlationId });
		const order = types(out).filter((t) => ["tool_call", "confirmation_required", "approval_decision"].includes(t));
		expect(order).toEqual(["tool_call", "confirmation_required", "approval_decision"]);
		expect(ofType(tracedMessages(home, session.id), "confirmation_required")).toEqual([required]);
	});

	it("each person-asked call gets its own correlationId; policy decisions have none and ask nobody", async () => {
		const { session } = await harness(
			[[callTool("write", {}, "w1"), callTool("write", {}, "w2"), callTool("echo", { text: "x" }, "e1")], [say("ok")]],
			{
				tools: [
					write,
					tool({
						name: "echo",
						description: "e",
						parameters: z.object({ text: z.string() }),
						readOnly: true,
						execute: async ({ text }) => text,
					}),
				],
			},
		);
		const out = await runText(session, "go", { approve: async () => "deny" });
		const required = ofType(out, "confirmation_required");
		expect(required.map((m) => m.callId)).toEqual(["w1", "w2"]);
		expect(new Set(required.map((m) => m.correlationId)).size).toBe(2);
		const decisions = ofType(out, "approval_decision");
		expect(decisions.map((d) => [d.callId, d.by, d.correlationId])).toEqual([
			["w1", "user", required[0]?.correlationId],
			["w2", "user", required[1]?.correlationId],
			["e1", "policy", undefined],
		]);
		expect(ofType(out, "tool_call_output").find((o) => o.callId === "w1")?.output).toBe(DENIED_OUTPUT);
	});

	it("an abort while the person decides leaves the confirmation unanswered: no approval_decision follows it", async () => {
		const { session } = await harness([[callTool("write", {}, "w1")], [say("ok")]], { tools: [write] });
		const controller = new AbortController();
		const out = await runText(session, "go", {
			signal: controller.signal,
			approve: () => {
				controller.abort();
				return new Promise(() => {});
			},
		});
		expect(ofType(out, "confirmation_required")).toHaveLength(1);
		expect(ofType(out, "approval_decision")).toHaveLength(0);
		expect(out.at(-1)).toMatchObject({ type: "done", reason: "user_abort" });
	});
});

describe("an approval nobody answered in time", () => {
	it('a host that answers { decision: "deny", by: "timeout" } records the deny as by: "timeout", and the model is told nobody answered', async () => {
		const { session, model } = await harness([[callTool("write", {}, "w1")], [say("ok")]], { tools: [write] });
		const out = await runText(session, "go", { approve: async () => ({ decision: "deny", by: "timeout" }) });
		const [required] = ofType(out, "confirmation_required");
		expect(ofType(out, "approval_decision")).toMatchObject([
			{ callId: "w1", decision: "deny", by: "timeout", correlationId: required?.correlationId },
		]);
		expect(ofType(out, "tool_call_output")).toMatchObject([{ status: "denied", output: UNANSWERED_OUTPUT }]);
		expect(model.requests[1]?.messages.at(-1)).toMatchObject({ type: "tool_call_output", output: UNANSWERED_OUTPUT });
	});

	it("a host whose approve throws or rejects denies the call (nothing runs), by the engine: nobody is said to have refused", async () => {
		const runs: string[] = [];
		const counted = tool({
			name: "write",
			description: "w",
			parameters: z.object({}),
			execute: async (_args, ctx) => {
				runs.push(ctx.callId);
				return "wrote";
			},
		});
		for (const approve of [
			() => {
				throw new Error("approval service down");
			},
			async () => Promise.reject(new Error("approval service down")),
		]) {
			const { session, model } = await harness([[callTool("write", {}, "w1")], [say("ok")]], { tools: [counted] });
			const out = await runText(session, "go", { approve });
			expect(ofType(out, "approval_decision")).toMatchObject([{ callId: "w1", decision: "deny", by: "policy" }]);
			const [output] = ofType(out, "tool_call_output");
			expect(output).toMatchObject({
				status: "denied",
				output: "Tool call denied: the approval could not be asked (approval service down).",
			});
			expect(output?.output).not.toBe(DENIED_OUTPUT);
			expect(model.requests[1]?.messages.at(-1)).toMatchObject({ type: "tool_call_output", status: "denied" });
		}
		expect(runs).toEqual([]);
	});
});

describe("askAhead: every call of a turn that needs a person is announced at once", () => {
	it("when the model's output completes, confirmation_required goes out for each call that needs a person, in call order, before approve is asked about the first; approve is still asked one at a time", async () => {
		const echo = tool({
			name: "echo",
			description: "e",
			parameters: z.object({ text: z.string() }),
			readOnly: true,
			execute: async ({ text }) => text,
		});
		const calls = [callTool("write", {}, "w1"), callTool("echo", { text: "x" }, "e1"), callTool("write", {}, "w2")];
		const { session, home } = await harness([calls, [say("ok")]], { tools: [write, echo] });
		const asked: { callId: string; correlationId: string; onDisk: string[] }[] = [];
		const out = await runText(session, "go", {
			askAhead: true,
			approve: async (call, { correlationId }) => {
				const onDisk = ofType(tracedMessages(home, session.id), "confirmation_required").map((m) => m.callId);
				asked.push({ callId: call.callId, correlationId, onDisk });
				return "allow";
			},
		});
		const required = ofType(out, "confirmation_required");
		expect(required.map((m) => m.callId)).toEqual(["w1", "w2"]);
		expect(asked.map((a) => a.callId)).toEqual(["w1", "w2"]);
		expect(asked.map((a) => a.correlationId)).toEqual(required.map((m) => m.correlationId));
		expect(asked[0]?.onDisk).toEqual(["w1", "w2"]);
		const order = out.filter((m) => m.type === "confirmation_required" || m.type === "approval_decision");
		expect(order.map((m) => `${m.type}:${"callId" in m ? m.callId : ""}`)).toEqual([
			"confirmation_required:w1",
			"confirmation_required:w2",
			// Decisions stay in call order.
			"approval_decision:w1",
			"approval_decision:e1",
			"approval_decision:w2",
		]);
	});
});

describe("a call refused by the approval policy", () => {
	it("tells the model it was refused by the policy; 'Tool call denied by user.' stays for a person's denial", async () => {
		const { session, model } = await harness(
			[[callTool("write", {}, "w1"), callTool("write", {}, "w2")], [say("ok")]],
			{
				tools: [write],
				approval: { write: "deny" },
			},
		);
		const out = await runText(session, "go", { approve: async () => "allow" });
		const outputs = ofType(out, "tool_call_output");
		expect(outputs.map((o) => o.status)).toEqual(["denied", "denied"]);
		for (const o of outputs) {
			expect(o.output).toMatch(/refused by the approval policy/);
			expect(o.output).not.toBe(DENIED_OUTPUT);
		}
		expect(ofType(out, "confirmation_required")).toHaveLength(0);
		const sent = model.requests[1]?.messages.filter((m) => m.type === "tool_call_output") ?? [];
		expect(sent.map((m) => m.type === "tool_call_output" && m.output)).toEqual(outputs.map((o) => o.output));
	});

	it("a call the policy would ask about, in a run with no approve, says no one could be asked", async () => {
		const { session } = await harness([[callTool("write", {}, "w1")], [say("ok")]], { tools: [write] });
		const [output] = ofType(await runText(session, "go"), "tool_call_output");
		expect(output?.status).toBe("denied");
		expect(output?.output).toMatch(/refused by the approval policy: write needs a person's approval/);
	});
});

describe("a turn with an allowed call and one that waits on a person", () => {
	for (const askAhead of [false, true]) {
		it(`the allowed call runs while the person is still asked about the other${askAhead ? " (askAhead)" : ""}`, async () => {
			const ran: string[] = [];
			// The answer waits for the allowed call: an engine that held it for the answer would hang here.
			const allowedRan = createGate();
			const allowed = tool({
				name: "allowed",
				description: "a",
				parameters: z.object({}),
				execute: async () => {
					ran.push("allowed");
					allowedRan.release();
					return "done";
				},
			});
			const { session } = await harness([[callTool("allowed", {}, "a1"), callTool("write", {}, "w1")], [say("ok")]], {
				tools: [allowed, write],
				approval: { allowed: "allow" },
			});
			const ranWhenAnswered: string[][] = [];
			await runText(session, "go", {
				askAhead,
				approve: async () => {
					await allowedRan.wait();
					ranWhenAnswered.push([...ran]);
					return "allow";
				},
			});
			expect(ranWhenAnswered).toEqual([["allowed"]]);
		});
	}
});

describe("when a call a person allowed starts", () => {
	it("a read-only call a person was asked about waits for the model's output; one that needed no approval starts mid-stream", async () => {
		const read = (name: string) =>
			tool({ name, description: "r", parameters: z.object({}), readOnly: true, execute: async () => "read" });
		const { session } = await harness(
			[[callTool("asked", {}, "a1"), callTool("free", {}, "f1"), wait(50), say("still talking")], [say("ok")]],
			{ tools: [read("asked"), read("free")], approval: { asked: "ask" } },
		);
		const out = await runText(session, "go", { approve: async () => "allow" });
		const at = (match: (m: (typeof out)[number]) => boolean) => out.findIndex(match);
		const streamEnd = at((m) => m.type === "request_end");
		expect(at((m) => m.type === "approval_decision" && m.callId === "a1")).toBeLessThan(streamEnd);
		expect(at((m) => m.type === "tool_start" && m.callId === "f1")).toBeLessThan(streamEnd);
		expect(at((m) => m.type === "tool_start" && m.callId === "a1")).toBeGreaterThan(streamEnd);
	});
});

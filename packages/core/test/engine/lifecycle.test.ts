import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { createGate } from "../../src/model/gate.js";
import { callTool, fail, holdAt, reportUsage, say, think } from "../../src/model/scripted.js";
import { textTaskTypes } from "../../src/testing/task-shapes.js";
import { tool } from "../../src/tools/tool.js";
import { cleanup, echoTool, hangOr, harness, lastDone, ofType, runText, shape, types } from "../harness.js";

afterEach(cleanup);

describe("Inputs and outputs", () => {
	it("One run drives one complete Task, until the model produces a final answer with no tool calls", async () => {
		const { session, model } = await harness([[callTool("echo", { text: "a" }, "c1")], [say("all done")]], {
			tools: [echoTool()],
		});
		const out = await runText(session, "go");
		expect(model.requests).toHaveLength(2);
		expect(ofType(out, "done")).toHaveLength(1);
		expect(lastDone(out)).toMatchObject({ reason: "model_stop" });
		expect(out.at(-1)?.type).toBe("done");
	});

	it("the return value is an async generator that streams partial fragments, complete model messages and events", async () => {
		const { session } = await harness([
			[think("hmm"), say("Hello world", ["Hello", " world"]), reportUsage({ input: 7, output: 3 })],
		]);
		const out = await runText(session, "hi");
		expect(types(out)).toEqual(textTaskTypes(2, { reasoning: true }));
		const partials = ofType(out, "partial_text");
		expect(partials.map((p) => p.delta)).toEqual(["Hello", " world"]);
		// A fragment carries the id of the message it becomes.
		expect(partials[0]?.id).toBe(ofType(out, "assistant_text")[0]?.id);
	});

	it("every message has an id, a timestamp and a seq that grows by one, across Tasks", async () => {
		const { session } = await harness([[say("one")], [say("two")]]);
		const first = await runText(session, "a");
		const second = await runText(session, "b");
		const seqs = [...first, ...second].map((m) => m.seq);
		expect(seqs).toEqual(seqs.map((_, i) => i + 1));
		expect(new Set([...first, ...second].filter((m) => !m.type.startsWith("partial_")).map((m) => m.id)).size).toBe(
			first.length + second.length - ofType([...first, ...second], "partial_text").length,
		);
	});

	it("the prompt is sent after the system prompt, with the tool specs, and echoed to the stream", async () => {
		const { session, model } = await harness([[say("ok")]], { tools: [echoTool()], system: "Be brief." });
		const input = userText("hello");
		const out = await runText(session, "hello");
		const request = model.requests[0];
		expect(request?.system).toBe("Be brief.");
		expect(request?.tools.map((t) => t.name)).toEqual(["echo"]);
		expect(request?.tools[0]?.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } } });
		expect(shape(request?.messages ?? [])).toEqual(["user:hello"]);
		expect(out[0]).toMatchObject({ type: "user_text", text: "hello", seq: 1 });
		expect(input.seq).toBe(0);
	});

	it("a run with bad input fails at once with an error naming the bad element", async () => {
		const { session } = await harness([[say("never")]]);
		const bad = [userText("ok"), { type: "done" }] as unknown as Parameters<typeof session.run>[0];
		expect(() => session.run(bad)).toThrow(/input\[1\] has type "done"/);
		expect(() => session.run([])).toThrow(/input is empty/);
		expect(session.busy).toBe(false);
	});

	it("thinkingLevel is passed to the model with every request of the run", async () => {
		const { session, model } = await harness([[callTool("echo", { text: "x" })], [say("done")]], {
			tools: [echoTool()],
		});
		await runText(session, "go", { thinkingLevel: "high" });
		expect(model.requests.map((r) => r.thinkingLevel)).toEqual(["high", "high"]);
	});
});

describe("Lifecycle of a turn", () => {
	it("1. each turn emits request_begin first", async () => {
		const { session } = await harness([[callTool("echo", { text: "x" })], [say("done")]], { tools: [echoTool()] });
		const out = await runText(session, "go");
		const begins = ofType(out, "request_begin");
		expect(begins.map((b) => [b.turn, b.attempt])).toEqual([
			[1, 0],
			[2, 0],
		]);
		expect(out.findIndex((m) => m.type === "request_begin")).toBeLessThan(out.findIndex((m) => m.type === "tool_call"));
	});

	it("3. every complete tool_call triggers exactly one approve callback, and the decision is recorded as approval_decision", async () => {
		const asked: string[] = [];
		const write = tool({
			name: "write",
			description: "writes",
			parameters: z.object({ n: z.number() }),
			execute: async ({ n }) => `wrote ${n}`,
		});
		const { session } = await harness(
			[
				[callTool("write", { n: 1 }, "w1"), callTool("write", { n: 2 }, "w2"), callTool("echo", { text: "r" }, "r1")],
				[say("ok")],
			],
			{ tools: [write, echoTool()] },
		);
		const out = await runText(session, "go", {
			approve: async (call) => {
				asked.push(call.callId);
				return call.callId === "w1" ? "allow" : "deny";
			},
		});
		// The read-only echo is allowed by the default policy: no person is asked, the policy's decision is recorded.
		expect(asked).toEqual(["w1", "w2"]);
		expect(ofType(out, "approval_decision").map((d) => [d.callId, d.decision, d.by])).toEqual([
			["w1", "allow", "user"],
			["w2", "deny", "user"],
			["r1", "allow", "policy"],
		]);
	});

	it("approve is called as soon as each tool_call completes in the stream, one at a time, in call order", async () => {
		const gate = createGate();
		const log: string[] = [];
		const write = tool({
			name: "write",
			description: "writes",
			parameters: z.object({}),
			execute: async () => "ok",
		});
		const { session } = await harness(
			[[callTool("write", {}, "a"), holdAt(gate), callTool("write", {}, "b")], [say("ok")]],
			{
				tools: [write],
			},
		);
		let inFlight = 0;
		const askedA = createGate();
		const run = runText(session, "go", {
			approve: async (call) => {
				inFlight++;
				log.push(`ask ${call.callId} (in flight: ${inFlight}, stream held: ${!gate.isReleased})`);
				if (call.callId === "a") {
					askedA.release();
					// a's answer waits for the rest of the stream (b complete): an engine that asked b
					// meanwhile would have two questions in flight.
					await gate.wait();
					await new Promise((r) => setImmediate(r));
				}
				inFlight--;
				return "allow";
			},
		});
		await gate.reached;
		// The stream stays held until a has been asked: an engine that asked only at the stream's end never gets here.
		await askedA.wait();
		gate.release();
		await run;
		expect(log).toEqual(["ask a (in flight: 1, stream held: true)", "ask b (in flight: 1, stream held: false)"]);
	});

	it("4. approved calls run concurrently; outputs stream out in completion order", async () => {
		// Each call finishes only once the one after it has: run one after another, in call order,
		// they would wait on each other forever. Concurrently they finish last call first.
		const finished = { s: createGate(), m: createGate(), f: createGate() };
		const after: Record<string, keyof typeof finished | undefined> = { s: "m", m: "f", f: undefined };
		const ordered = tool({
			name: "ordered",
			description: "finishes after the call it waits for",
			parameters: z.object({ id: z.enum(["s", "m", "f"]) }),
			readOnly: true,
			execute: async ({ id }, ctx) => {
				const waitFor = after[id];
				if (waitFor !== undefined) await finished[waitFor].wait(ctx.signal);
				// Released once its output is on its way: the next one's output comes after it.
				setImmediate(() => finished[id].release());
				return id;
			},
		});
		const { session, model } = await harness(
			[
				[
					callTool("ordered", { id: "s" }, "s"),
					callTool("ordered", { id: "m" }, "m"),
					callTool("ordered", { id: "f" }, "f"),
				],
				[say("done")],
			],
			{ tools: [ordered] },
		);
		const out = await runText(session, "go");
		expect(ofType(out, "tool_call_output").map((o) => o.callId)).toEqual(["f", "m", "s"]);
		// 6. …and become the next turn's input in the original call order.
		expect(shape(model.requests[1]?.messages ?? []).slice(-3)).toEqual(["out:s:ok", "out:m:ok", "out:f:ok"]);
	});

	it("read-only calls the policy allows start while the model is still streaming", async () => {
		const gate = createGate();
		const { session } = await harness(
			[[callTool("echo", { text: "early" }, "e"), holdAt(gate), say("more")], [say("done")]],
			{
				tools: [echoTool()],
			},
		);
		const seen: OmniMessage[] = [];
		const output = createGate();
		const run = (async () => {
			for await (const m of session.run([userText("go")])) {
				seen.push(m);
				if (m.type === "tool_call_output") output.release();
			}
		})();
		await gate.reached;
		// The model's stream is held until the test releases it: the output can only come before that if the call started early.
		await output.wait();
		expect(types(seen)).toContain("tool_call_output");
		expect(types(seen)).not.toContain("request_end");
		gate.release();
		await run;
	});

	it("5. when the LLM stream ends, token_usage is emitted and request_end follows at once, without waiting for tools", async () => {
		const { session } = await harness(
			[[callTool("echo", { text: "x", ms: 50 }, "t"), reportUsage({ input: 10, output: 2 })], [say("ok")]],
			{
				tools: [echoTool()],
			},
		);
		const out = await runText(session, "go");
		const t = types(out);
		const usageAt = t.indexOf("token_usage");
		expect(t[usageAt + 1]).toBe("request_end");
		expect(usageAt).toBeLessThan(t.indexOf("tool_call_output"));
		expect(ofType(out, "token_usage")[0]).toMatchObject({
			request: { input: 10, output: 2, total: 12 },
			session: { input: 10, output: 2, total: 12 },
		});
	});

	it("6. the next Request never fires before the whole batch is terminal", async () => {
		const { session } = await harness(
			[[callTool("echo", { text: "a", ms: 40 }, "a"), callTool("echo", { text: "b", ms: 5 }, "b")], [say("ok")]],
			{ tools: [echoTool()] },
		);
		const out = await runText(session, "go");
		const secondBegin = out.findIndex((m) => m.type === "request_begin" && m.turn === 2);
		const lastOutput = out.map((m) => m.type).lastIndexOf("tool_call_output");
		expect(lastOutput).toBeLessThan(secondBegin);
	});

	it('A denial produces a synthetic tool output ("Tool call denied by user.") that the model reacts to', async () => {
		const write = tool({ name: "write", description: "w", parameters: z.object({}), execute: async () => "wrote" });
		const { session, model } = await harness([[callTool("write", {}, "w")], [say("ok, I won't")]], { tools: [write] });
		const out = await runText(session, "go", { approve: async () => "deny" });
		expect(ofType(out, "tool_call_output")[0]).toMatchObject({ status: "denied", output: "Tool call denied by user." });
		expect(types(out)).not.toContain("tool_start");
		expect(shape(model.requests[1]?.messages ?? []).at(-1)).toBe("out:w:denied");
	});

	it("with no approve callback every call that needs approval is denied (conservative default)", async () => {
		const write = tool({ name: "write", description: "w", parameters: z.object({}), execute: async () => "wrote" });
		const { session } = await harness(
			[[callTool("write", {}, "w"), callTool("echo", { text: "r" }, "r")], [say("ok")]],
			{
				tools: [write, echoTool()],
			},
		);
		const out = await runText(session, "go");
		expect(ofType(out, "approval_decision").map((d) => [d.callId, d.decision, d.by])).toEqual([
			["w", "deny", "policy"],
			["r", "allow", "policy"],
		]);
		expect(ofType(out, "tool_call_output").find((o) => o.callId === "w")).toMatchObject({ status: "denied" });
	});

	it('the agent\'s approval rules decide before anyone is asked: allow, deny, ask and "*"', async () => {
		const write = tool({ name: "write", description: "w", parameters: z.object({}), execute: async () => "wrote" });
		const asked: string[] = [];
		const { session } = await harness(
			[[callTool("write", {}, "w"), callTool("echo", { text: "r" }, "r")], [say("ok")]],
			{ tools: [write, echoTool()], approval: { write: "allow", "*": "deny" } },
		);
		const out = await runText(session, "go", {
			approve: async (c) => {
				asked.push(c.callId);
				return "allow";
			},
		});
		expect(asked).toEqual([]);
		expect(ofType(out, "approval_decision").map((d) => [d.callId, d.decision, d.by])).toEqual([
			["w", "allow", "policy"],
			["r", "deny", "policy"],
		]);
	});

	it("a thrown tool error, an unknown tool and bad arguments become error outputs the model sees, never a crash", async () => {
		const broken = tool({
			name: "broken",
			description: "b",
			parameters: z.object({ path: z.string() }),
			readOnly: true,
			execute: async () => {
				throw new Error("disk on fire");
			},
		});
		const { session, model } = await harness(
			[
				[
					callTool("broken", { path: "a" }, "t1"),
					callTool("nope", {}, "t2"),
					callTool("broken", { path: 3 }, "t3"),
					callTool("broken", "{not json", "t4"),
				],
				[say("I see")],
			],
			{ tools: [broken] },
		);
		const out = await runText(session, "go");
		const outputs = Object.fromEntries(ofType(out, "tool_call_output").map((o) => [o.callId, o]));
		expect(outputs.t1).toMatchObject({ status: "error", output: "Error: disk on fire" });
		expect(outputs.t2).toMatchObject({ status: "error", output: 'Unknown tool "nope". Available tools: broken.' });
		expect(outputs.t3?.output).toMatch(/^Invalid arguments for broken: path: /);
		expect(outputs.t4?.output).toMatch(/not valid JSON/);
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(model.requests).toHaveLength(2);
	});

	it("a result JSON cannot hold (a cycle, a BigInt) is the call's error output, not the host's crash", async () => {
		const cyclic: Record<string, unknown> = { name: "loop" };
		cyclic.self = cyclic;
		const odd = tool({
			name: "odd",
			description: "o",
			parameters: z.object({ which: z.string() }),
			readOnly: true,
			// A plain-JS tool (or one wrapping another library) can return what ToolResult's type forbids.
			execute: async ({ which }) => (which === "cycle" ? cyclic : { big: 10n }) as never,
		});
		const { session, model } = await harness(
			[[callTool("odd", { which: "cycle" }, "c1"), callTool("odd", { which: "big" }, "c2")], [say("I see")]],
			{ tools: [odd] },
		);
		const out = (await hangOr(runText(session, "go"))) as OmniMessage[];
		const outputs = Object.fromEntries(ofType(out, "tool_call_output").map((o) => [o.callId, o]));
		expect(outputs.c1).toMatchObject({ status: "error" });
		expect(outputs.c1?.output).toMatch(/^Error: the tool's result could not be written as JSON \(.*circular/i);
		expect(outputs.c2?.output).toMatch(/^Error: the tool's result could not be written as JSON \(.*BigInt/);
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(model.requests).toHaveLength(2);
	});

	it("tool_start and tool_progress are emitted while a tool runs", async () => {
		const slow = tool({
			name: "slow",
			description: "s",
			parameters: z.object({}),
			readOnly: true,
			execute: async (_args, ctx) => {
				ctx.progress("half way");
				return "done";
			},
		});
		const { session } = await harness([[callTool("slow", {}, "s")], [say("ok")]], { tools: [slow] });
		const out = await runText(session, "go");
		const t = types(out);
		expect(t.indexOf("tool_start")).toBeLessThan(t.indexOf("tool_progress"));
		expect(t.indexOf("tool_progress")).toBeLessThan(t.indexOf("tool_call_output"));
		expect(ofType(out, "tool_progress")[0]).toMatchObject({ callId: "s", progress: "half way" });
	});

	it("a tool that outlives its time limit ends with an error output", async () => {
		const hang = tool({
			name: "hang",
			description: "h",
			parameters: z.object({}),
			readOnly: true,
			execute: () => new Promise<string>(() => {}),
		});
		const { session } = await harness([[callTool("hang", {}, "h")], [say("ok")]], {
			tools: [hang],
			settings: { timeouts: { toolMs: 30 } },
		});
		const out = await runText(session, "go");
		expect(ofType(out, "tool_call_output")[0]).toMatchObject({
			status: "error",
			output: "Error: hang timed out after 30 ms.",
		});
	});
});

describe("Done reasons", () => {
	it("model_stop: the model finished without requesting more tools", async () => {
		const { session } = await harness([[say("hi")]]);
		expect(lastDone(await runText(session, "x"))).toMatchObject({ reason: "model_stop" });
	});

	it("max_turns: the model-turn limit was reached (default 100)", async () => {
		// Different arguments each turn: a model that keeps working, not one repeating itself.
		const loopForever = (_request: unknown, index: number) => [callTool("echo", { text: `step ${index}` })];
		const { session, model, agent } = await harness(
			Array.from({ length: 120 }, () => loopForever),
			{ tools: [echoTool()] },
		);
		expect(agent.config.maxTurns).toBe(100);
		const out = await runText(session, "go");
		expect(lastDone(out)).toMatchObject({ reason: "max_turns" });
		expect(model.requests).toHaveLength(100);
	});

	it("max_turns is configurable", async () => {
		const { session, model } = await harness(
			[[callTool("echo", { text: "a" })], [callTool("echo", { text: "b" })], [say("x")]],
			{
				tools: [echoTool()],
				settings: { maxTurns: 2 },
			},
		);
		expect(lastDone(await runText(session, "go"))).toMatchObject({ reason: "max_turns" });
		expect(model.requests).toHaveLength(2);
	});

	it("error: an unrecoverable failure ends the loop, with the error in the event", async () => {
		const { session } = await harness([
			[say("part"), fail({ class: "fatal", message: "bad request: tools[0] invalid", status: 400 })],
		]);
		const out = await runText(session, "go");
		expect(ofType(out, "request_end")[0]).toMatchObject({ status: "failed", error: { kind: "fatal", status: 400 } });
		expect(lastDone(out)).toMatchObject({
			reason: "error",
			error: { kind: "fatal", message: "bad request: tools[0] invalid" },
		});
	});

	it("auth: the request ends with its own status and is never retried", async () => {
		const { session, model } = await harness([
			[fail({ class: "auth", message: "invalid x-api-key", status: 401 })],
			[say("never")],
		]);
		const out = await runText(session, "go");
		expect(ofType(out, "request_end")[0]).toMatchObject({ status: "auth" });
		expect(lastDone(out)).toMatchObject({ reason: "error", error: { kind: "auth" } });
		expect(model.requests).toHaveLength(1);
	});

	it("a model adapter that throws instead of returning an outcome still ends the Task with one done", async () => {
		const { session } = await harness([[fail({ class: "fatal", message: "boom" }, "throw")]]);
		const out = await runText(session, "go");
		expect(types(out).slice(-3)).toEqual(["token_usage", "request_end", "done"]);
		expect(lastDone(out)).toMatchObject({ reason: "error" });
	});

	it("done carries the Task's usage and the Session's", async () => {
		const { session } = await harness([
			[reportUsage({ input: 5, output: 1 }), say("a")],
			[reportUsage({ input: 8, output: 2 }), say("b")],
		]);
		await runText(session, "one");
		const out = await runText(session, "two");
		expect(lastDone(out)).toMatchObject({
			usage: { input: 8, output: 2, total: 10 },
			sessionUsage: { input: 13, output: 3, total: 16 },
		});
	});

	it("max_turns after a tool turn keeps the outputs paired for the next Task", async () => {
		const { session, model } = await harness([[callTool("echo", { text: "a" }, "c1")], [say("next task answer")]], {
			tools: [echoTool()],
			settings: { maxTurns: 1 },
		});
		expect(lastDone(await runText(session, "go"))?.reason).toBe("max_turns");
		const out = await runText(session, "continue");
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(shape(model.requests[1]?.messages ?? [])).toEqual(["user:go", "call:c1", "out:c1:ok", "user:continue"]);
	});
});

describe("approvals and the host's view", () => {
	it("a person is asked about a call only once the host has read that tool_call from the stream", async () => {
		const write = tool({ name: "write", description: "w", parameters: z.object({}), execute: async () => "ok" });
		const { session } = await harness([[callTool("write", {}, "w1"), say("more text after the call")], [say("ok")]], {
			tools: [write],
		});
		const log: string[] = [];
		const stream = session.run([userText("go")], {
			approve: async (call) => {
				log.push(`approve ${call.callId}`);
				return "allow";
			},
		});
		for await (const m of stream) {
			if (m.type === "tool_call") log.push(`read ${m.callId}`);
			// A slow reader: the engine runs ahead, but must not ask before the call was read.
			await new Promise((r) => setTimeout(r, 2));
		}
		expect(log).toEqual(["read w1", "approve w1"]);
	});
});

import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { clearedOutput } from "../../src/context/tool-result-clearing.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, reportUsage, say } from "../../src/model/scripted.js";
import { tool } from "../../src/tools/tool.js";
import {
	cleanup,
	collect,
	countedEcho,
	echoTool,
	harness,
	lastDone,
	ofType,
	runText,
	shape,
	tracedMessages,
} from "../harness.js";

afterEach(cleanup);

describe("the Session's token budget", () => {
	it("maxSessionTokens → done{budget_exceeded}, checked between turns (it can overshoot)", async () => {
		const { session, model } = await harness(
			[
				[reportUsage({ input: 600, output: 100 }), callTool("echo", { text: "a" })],
				[reportUsage({ input: 700, output: 100 }), callTool("echo", { text: "b" })],
				[say("never")],
			],
			{ tools: [echoTool()], settings: { maxSessionTokens: 1000 } },
		);
		const out = await runText(session, "go");
		expect(model.requests).toHaveLength(2);
		expect(lastDone(out)).toMatchObject({ reason: "budget_exceeded", sessionUsage: { total: 1500 } });
		// The last batch's outputs still joined the context, paired with their calls.
		expect(shape(session.context).slice(-2)).toEqual(["call:call_2", "out:call_2:ok"]);
	});

	it("a Task begun over the budget ends before its first request, yet its prompt is shown and recorded", async () => {
		const { session, model, home } = await harness([[reportUsage({ input: 1500 }), say("spent")], [say("never")]], {
			settings: { maxSessionTokens: 1000 },
		});
		await runText(session, "first");
		const out = await runText(session, "second");
		expect(out.map((m) => (m.type === "user_text" ? `user:${m.text}` : m.type))).toEqual(["user:second", "done"]);
		expect(lastDone(out)?.reason).toBe("budget_exceeded");
		expect(model.requests).toHaveLength(1);
		expect(tracedMessages(home, session.id).flatMap((m) => (m.type === "user_text" ? [m.text] : []))).toEqual([
			"first",
			"second",
		]);
	});

	it("0 means no budget", async () => {
		const { session } = await harness(
			[[reportUsage({ input: 10_000_000 }), callTool("echo", { text: "a" })], [say("ok")]],
			{
				tools: [echoTool()],
				settings: { compaction: { maxContextLength: 0 } },
			},
		);
		expect(lastDone(await runText(session, "go"))?.reason).toBe("model_stop");
	});
});

describe("loop detection", () => {
	const sameCallForever = () => [callTool("echo", { text: "same" })];

	it("the same tool, arguments and result reaching the limit (5) ends the Task with loop_detected; the model is warned one repeat before", async () => {
		const runs: string[] = [];
		const { session, model } = await harness(
			Array.from({ length: 20 }, () => sameCallForever),
			{ tools: [countedEcho(runs)] },
		);
		const out = await runText(session, "go");
		expect(lastDone(out)?.reason).toBe("loop_detected");
		// Five calls ran: the fifth reached the limit, and the model was not asked again.
		expect(runs).toHaveLength(5);
		expect(model.requests).toHaveLength(5);
		const warnings = ofType(out, "user_text").filter((m) => m.text.startsWith("[loop_warning]"));
		expect(warnings).toHaveLength(1);
		expect(warnings[0]?.text).toContain("called echo with the same arguments 4 times");
		expect(shape(model.requests[4]?.messages ?? []).at(-1)).toMatch(/^user:\[loop_warning\]/);
	});

	it("a model that heeds the warning is not stopped", async () => {
		const { session } = await harness(
			[...Array.from({ length: 4 }, () => sameCallForever), [say("I will stop repeating myself.")]],
			{ tools: [echoTool()] },
		);
		const out = await runText(session, "go");
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(ofType(out, "user_text").filter((m) => m.text.startsWith("[loop_warning]"))).toHaveLength(1);
	});

	it("with the smallest limit (repeats: 2) no first call is warned about: the second identical one ends the Task", async () => {
		const { session } = await harness(
			Array.from({ length: 5 }, () => sameCallForever),
			{
				tools: [echoTool()],
				settings: { loopDetection: { enabled: true, repeats: 2 } },
			},
		);
		const out = await runText(session, "go");
		expect(ofType(out, "user_text").filter((m) => m.text.startsWith("[loop_warning]"))).toHaveLength(0);
		expect(lastDone(out)?.reason).toBe("loop_detected");
		expect(ofType(out, "tool_call")).toHaveLength(2);
	});

	it("identical parallel calls that reach the limit in one turn end the Task at once", async () => {
		const runs: string[] = [];
		const five = () => Array.from({ length: 5 }, () => callTool("echo", { text: "same" }));
		const { session, model } = await harness([five, [say("never asked")]], { tools: [countedEcho(runs)] });
		const out = await runText(session, "go");
		expect(lastDone(out)?.reason).toBe("loop_detected");
		expect(model.requests).toHaveLength(1);
	});

	it("compares arguments canonically: key order does not make a new call", async () => {
		const turns = Array.from({ length: 20 }, (_, i) => () => [
			callTool("echo", i % 2 ? '{"text":"s","ms":0}' : '{"ms":0,"text":"s"}'),
		]);
		const { session } = await harness(turns, { tools: [echoTool()] });
		expect(lastDone(await runText(session, "go"))?.reason).toBe("loop_detected");
	});

	it("polling that gets new results is not a loop", async () => {
		let polls = 0;
		const status = tool({
			name: "status",
			description: "build status",
			parameters: z.object({}),
			readOnly: true,
			execute: async () => `progress ${++polls * 10}%`,
		});
		const turns = [...Array.from({ length: 9 }, () => [callTool("status")]), [say("built")]];
		const { session } = await harness(turns, { tools: [status] });
		const out = await runText(session, "wait for the build");
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(ofType(out, "user_text").some((m) => m.text.includes("loop_warning"))).toBe(false);
	});

	it("can be turned off", async () => {
		const { session, model } = await harness([...Array.from({ length: 8 }, () => sameCallForever), [say("ok")]], {
			tools: [echoTool()],
			settings: { loopDetection: { enabled: false } },
		});
		expect(lastDone(await runText(session, "go"))?.reason).toBe("model_stop");
		expect(model.requests).toHaveLength(9);
	});
});

describe("clearing older tool results", () => {
	const turns = (n: number) => [
		...Array.from({ length: n }, (_, i) => [
			reportUsage({ input: 800 }),
			callTool("echo", { text: `result ${i} ${"x".repeat(50)}` }, `c${i}`),
		]),
		[say("done")],
	];

	it("above the threshold, outputs older than the last N turns become a short placeholder, pairing kept", async () => {
		// Each request reports 800 of a 1000-token window: over the 70% threshold, under the compaction trigger.
		const { session, model, home } = await harness(turns(5), {
			tools: [echoTool()],
			settings: {
				compaction: { maxContextLength: 1000 },
				clearToolResults: { enabled: true, threshold: 0.7, keepTurns: 2 },
			},
		});
		const out = await runText(session, "go");
		expect(lastDone(out)?.reason).toBe("model_stop");
		const last = model.requests.at(-1)?.messages ?? [];
		const outputs = last.filter((m) => m.type === "tool_call_output");
		expect(outputs.map((o) => o.output.startsWith("[tool output cleared"))).toEqual([true, true, true, false, false]);
		expect(outputs[0]?.output).toBe(clearedOutput("echo: result 0 ".length + 50));
		expect(shape(last).filter((s) => s.startsWith("call:") || s.startsWith("out:"))).toHaveLength(10);
		// The Trace keeps what actually happened.
		expect(ofType(tracedMessages(home, session.id), "tool_call_output")[0]?.output).toMatch(/^echo: result 0/);
	});

	it("is on by default (70% of the window, the last 3 turns kept), and can be turned off", async () => {
		const on = await harness(turns(5), {
			tools: [echoTool()],
			settings: { compaction: { maxContextLength: 1000 } },
		});
		await runText(on.session, "go");
		const cleared = (on.model.requests.at(-1)?.messages ?? []).filter((m) => m.type === "tool_call_output");
		expect(cleared.map((o) => o.output.startsWith("[tool output cleared"))).toEqual([true, true, false, false, false]);
		const off = await harness(turns(5), {
			tools: [echoTool()],
			settings: { compaction: { maxContextLength: 1000 }, clearToolResults: { enabled: false } },
		});
		await runText(off.session, "go");
		const outputs = (off.model.requests.at(-1)?.messages ?? []).filter((m) => m.type === "tool_call_output");
		expect(outputs.every((o) => o.output.startsWith("echo: result"))).toBe(true);
	});
});

describe("session titles", () => {
	it("generateTitle() is one out-of-band call: no tools, no system prompt, never in the history or the Trace", async () => {
		const { session, model, home } = await harness(
			[[say("Sure, here is a plan.")], [say('"Planning a Trip to Lisbon."')]],
			{
				tools: [echoTool()],
				system: "You are terse.",
			},
		);
		await runText(session, "Help me plan a trip to Lisbon");
		const before = { context: session.context, trace: tracedMessages(home, session.id) };
		const title = await session.generateTitle();
		expect(title).toBe("Planning a Trip to Lisbon");
		const request = model.requests[1];
		expect(request?.purpose).toBe("title");
		expect(request?.tools).toEqual([]);
		expect(request?.system).toBeUndefined();
		expect(request?.messages[0]).toMatchObject({
			text: expect.stringContaining("User: Help me plan a trip to Lisbon"),
		});
		expect(session.context).toEqual(before.context);
		expect(tracedMessages(home, session.id)).toEqual(before.trace);
	});

	it("a model failure is a thrown error naming its class", async () => {
		const { session } = await harness([
			[say("hi")],
			[{ type: "fail", failure: { class: "auth", message: "bad key", status: 401 } }],
		]);
		await runText(session, "hello");
		await expect(session.generateTitle()).rejects.toMatchObject({ name: "ModelError", failure: { class: "auth" } });
	});

	it("a reply with no text (a tool call, quotes only) is no title: an error, never a blank title a host would save", async () => {
		const { session } = await harness([[say("hi")], [callTool("echo", { text: "x" })], [say('"."')]]);
		await runText(session, "hello");
		for (let i = 0; i < 2; i++) {
			await expect(session.generateTitle()).rejects.toMatchObject({
				name: "ModelError",
				failure: { class: "malformed", message: "the model's reply held no title" },
			});
		}
	});

	it("a title request that stalls ends with a timeout error at the first-byte limit", async () => {
		const { session } = await harness([[say("hi")], [{ type: "stall" }]], {
			settings: { timeouts: { firstByteMs: 50, idleMs: 50 } },
		});
		await runText(session, "hello");
		await expect(session.generateTitle()).rejects.toMatchObject({
			name: "ModelError",
			failure: { class: "timeout" },
		});
	});
});

describe("a long Session", () => {
	it("30 turns with compactions at turns 10 and 20: two rotations, valid pairing in every request, the same prefix at each compaction, no lost steering", async () => {
		const turnSteps = Array.from({ length: 30 }, (_, i) =>
			i === 29
				? [say("all thirty done")]
				: [say(`turn ${i + 1}`), callTool("echo", { text: `step ${i + 1}` }, `t${i + 1}`)],
		);
		const { session, model, home } = await harness(
			[
				...turnSteps.slice(0, 10),
				[say("[summary]first ten turns done[/summary]")],
				...turnSteps.slice(10, 20),
				[say("[summary]twenty turns done[/summary]")],
				...turnSteps.slice(20),
			],
			{ tools: [echoTool()], settings: { compaction: { maxSessionTurns: 10 } } },
		);
		const steered: string[] = [];
		const out: OmniMessage[] = [];
		for await (const m of session.run([userText("do thirty steps")])) {
			out.push(m);
			// Steer in ordinary turns and while each compaction runs.
			if ((m.type === "request_begin" && (m.turn === 5 || m.turn === 25)) || m.type === "compaction_begin") {
				const text = `steer at ${m.type} ${m.seq}`;
				if (session.steer(text)) steered.push(text);
			}
		}
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(ofType(out, "compaction_end").map((e) => e.status)).toEqual(["ok", "ok"]);
		const purposes = model.requests.map((r) => r.purpose);
		expect(purposes.indexOf("compaction")).toBe(10);
		expect(purposes.lastIndexOf("compaction")).toBe(21);
		expect(purposes).toHaveLength(32);

		// Two rotations: three Trace files, each one model context.
		expect(tracedMessages(home, session.id, 3)[0]).toMatchObject({
			text: "[context_summary]twenty turns done[/context_summary]",
		});
		expect(tracedMessages(home, session.id, 2)[0]).toMatchObject({
			text: "[context_summary]first ten turns done[/context_summary]",
		});

		// Valid pairing in every request.
		for (const request of model.requests) {
			const calls = request.messages.filter((m) => m.type === "tool_call").map((m) => m.callId);
			const outputs = request.messages.filter((m) => m.type === "tool_call_output").map((m) => m.callId);
			expect(outputs).toEqual(calls);
		}
		// Each compaction request starts with the previous request, message for message.
		for (const at of [10, 21]) {
			const previous = model.requests[at - 1]?.messages ?? [];
			expect(model.requests[at]?.messages.slice(0, previous.length)).toEqual(previous);
		}
		// No lost steering: every accepted steer reached a request.
		expect(steered).toHaveLength(4);
		const sent = new Set(
			model.requests.flatMap((r) => r.messages.flatMap((m) => (m.type === "user_text" ? [m.text] : []))),
		);
		for (const text of steered) expect(sent.has(`[user_steering]${text}[/user_steering]`), text).toBe(true);
		await collect(session.compact());
	});
});

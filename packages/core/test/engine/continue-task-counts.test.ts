import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, reportUsage, ScriptedModel, say } from "../../src/model/scripted.js";
import { crashAtApproval, crashCopy, resumeCrashed } from "../crash-helpers.js";
import { cleanup, collect, harness, lastDone, ofType, recordedWrite, scriptByPurpose } from "../harness.js";

afterEach(cleanup);

describe("continueTask and max_turns", () => {
	it("a continued Task keeps counting its turns: with maxTurns 3 and 2 turns made before the crash, it makes at most 1 more request", async () => {
		const runs: string[] = [];
		const write = recordedWrite(runs);
		const { session, home } = await harness(
			[[callTool("write", { text: "a" }, "w1")], [callTool("write", { text: "b" }, "w2")]],
			{ tools: [write], settings: { maxTurns: 3 } },
		);
		const { crashed } = await crashAtApproval(session, home, { allow: ["w1"] });
		expect(runs).toEqual(["w1"]);
		const model = new ScriptedModel([
			[callTool("write", { text: "c" }, "w3")],
			[callTool("write", { text: "d" }, "w4")],
			[callTool("write", { text: "e" }, "w5")],
			[say("done")],
		]);
		const resumed = await resumeCrashed(crashed, session.id, model, { tools: [write], settings: { maxTurns: 3 } });
		expect(resumed.unfinishedTask?.stage).toBe("tools");
		const continued = await collect(resumed.continueTask({ approve: async () => "allow" }));
		expect(lastDone(continued)?.reason).toBe("max_turns");
		// The Task made 2 requests before the crash; max_turns (3) leaves room for exactly one more.
		expect(model.requests).toHaveLength(1);
	});
});

describe("a continued Task whose context is discarded", () => {
	it("the fresh context begins with what the person asked before the crash, not with nothing", async () => {
		const runs: string[] = [];
		const write = recordedWrite(runs);
		const { session, home } = await harness([[callTool("write", { text: "a" }, "w1")]], { tools: [write] });
		const { crashed } = await crashAtApproval(session, home, { text: "write the letters" });
		const model = new ScriptedModel([
			[reportUsage({ input: 900, output: 150 }), callTool("write", { text: "b" }, "w2")],
			[say("done")],
		]);
		const settings = { compaction: { mode: "discard" as const, maxContextLength: 1000 } };
		const resumed = await resumeCrashed(crashed, session.id, model, { tools: [write], settings });
		const continued = await collect(resumed.continueTask({ approve: async () => "allow" }));
		expect(ofType(continued, "compaction_end")).toMatchObject([{ status: "ok" }]);
		const after = model.requests.at(-1)?.messages ?? [];
		expect(after.filter((m) => m.type === "user_text").map((m) => (m as { text: string }).text)).toContain(
			"write the letters",
		);
		expect(lastDone(continued)?.reason).toBe("model_stop");
	});

	it("a note the engine left last in the context (a loop warning) is not taken for what the person asked", async () => {
		const runs: string[] = [];
		const write = recordedWrite(runs);
		const { session, home } = await harness([[callTool("write", { text: "a" }, "w1")]], { tools: [write] });
		const { crashed } = await crashAtApproval(session, home, { text: "write the letters" });
		const same = () => callTool("write", { text: "same" });
		// The second same call warns, and its request's usage asks for a compaction at once.
		const model = new ScriptedModel([[same()], [reportUsage({ input: 900, output: 150 }), same()], [say("done")]]);
		const settings = {
			compaction: { mode: "discard" as const, maxContextLength: 1000 },
			loopDetection: { enabled: true, repeats: 3 },
		};
		const resumed = await resumeCrashed(crashed, session.id, model, { tools: [write], settings });
		const continued = await collect(resumed.continueTask({ approve: async () => "allow" }));
		expect(ofType(continued, "compaction_end")).toMatchObject([{ status: "ok" }]);
		const after = model.requests.at(-1)?.messages ?? [];
		const texts = after.filter((m) => m.type === "user_text").map((m) => (m as { text: string }).text);
		expect(texts).toContain("write the letters");
	});
});

describe("a crash right after a mid-Task compaction", () => {
	it("a Task cut off after its automatic compaction rotated the Trace (before its next request) is still an unfinished Task", async () => {
		const runs: string[] = [];
		const write = recordedWrite(runs);
		const { session, home } = await harness(
			scriptByPurpose([[callTool("write", { text: "a" }, "w1")], [say("after")]], [[say("[summary]s[/summary]")]]),
			{ tools: [write], approval: { "*": "allow" }, settings: { compaction: { maxSessionTurns: 1 } } },
		);
		const controller = new AbortController();
		let crashed = "";
		const out: OmniMessage[] = [];
		for await (const m of session.run([userText("go")], { signal: controller.signal })) {
			out.push(m);
			if (crashed === "" && m.type === "compaction_end") {
				expect(m.status).toBe("ok");
				crashed = crashCopy(home, session.id);
				controller.abort();
			}
		}
		expect(crashed).not.toBe("");
		const model = new ScriptedModel([[say("done")]]);
		const resumed = await resumeCrashed(crashed, session.id, model, { tools: [write], approval: { "*": "allow" } });
		// The Task had no done: a crash cut it off; it should be continuable.
		expect(resumed.unfinishedTask).toBeDefined();
	});

	it("the continued Task still counts the turns and tokens it made before the compaction's new Trace file", async () => {
		const runs: string[] = [];
		const write = recordedWrite(runs);
		const { session, home } = await harness(
			scriptByPurpose(
				[[callTool("write", { text: "a" }, "w1"), reportUsage({ input: 100, total: 100 })], [say("after")]],
				[[say("[summary]s[/summary]"), reportUsage({ input: 5, total: 5 })]],
			),
			{
				tools: [write],
				approval: { "*": "allow" },
				settings: { maxTurns: 2, compaction: { maxSessionTurns: 1 } },
			},
		);
		const controller = new AbortController();
		let crashed = "";
		for await (const m of session.run([userText("go")], { signal: controller.signal })) {
			if (crashed === "" && m.type === "compaction_end") {
				crashed = crashCopy(home, session.id);
				controller.abort();
			}
		}
		const model = new ScriptedModel([
			[callTool("write", { text: "b" }, "w2"), reportUsage({ input: 10, total: 10 })],
			[say("never")],
		]);
		const resumed = await resumeCrashed(crashed, session.id, model, {
			tools: [write],
			approval: { "*": "allow" },
			settings: { maxTurns: 2 },
		});
		const continued = await collect(resumed.continueTask({}));
		// One turn before the compaction, one after: max_turns (2) is reached.
		expect(model.requests).toHaveLength(1);
		expect(lastDone(continued)).toMatchObject({ reason: "max_turns", usage: { total: 115 } });
	});
});

describe("the usage a continued Task's done reports", () => {
	it("done.usage of a continued Task is the sum of that Task's token_usage events, before the crash included", async () => {
		const runs: string[] = [];
		const write = recordedWrite(runs);
		const { session, home } = await harness(
			[[callTool("write", { text: "a" }, "w1"), reportUsage({ input: 100, total: 100 })]],
			{ tools: [write] },
		);
		const { crashed, out: before } = await crashAtApproval(session, home);
		expect(ofType(before, "token_usage").map((t) => t.request.total)).toEqual([100]);
		const model = new ScriptedModel([[say("done"), reportUsage({ input: 10, total: 10 })]]);
		const resumed = await resumeCrashed(crashed, session.id, model, { tools: [write] });
		const continued = await collect(resumed.continueTask({ approve: async () => "allow" }));
		expect(lastDone(continued)?.sessionUsage.total).toBe(110);
		expect(lastDone(continued)?.usage.total).toBe(110);
	});
});

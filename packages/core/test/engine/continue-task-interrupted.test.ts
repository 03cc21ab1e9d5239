import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import { callTool, ScriptedModel, say } from "../../src/model/scripted.js";
import { crashAtApproval, crashCopy, resumeCrashed } from "../crash-helpers.js";
import { cleanup, collect, harness, lastDone, ofType, pairingProblems, recordedWrite, shape } from "../harness.js";

afterEach(cleanup);

/**
 * A turn of two writes cut off by a crash while w2 waits for its approval, w1 allowed and run;
 * resumed from the crash copy on a model that answers "next".
 */
async function cutOffAfterW1() {
	const runs: string[] = [];
	const write = recordedWrite(runs);
	const { session, home } = await harness(
		[[callTool("write", { text: "a" }, "w1"), callTool("write", { text: "b" }, "w2")]],
		// A checkpoint would hold w1 back while w2 is asked: these tests need w1 to have run by then.
		{ tools: [write], checkpoints: false },
	);
	const { crashed } = await crashAtApproval(session, home, { allow: ["w1"] });
	const model = new ScriptedModel([[say("next")]]);
	const resumed = await resumeCrashed(crashed, session.id, model, { tools: [write], checkpoints: false });
	return { runs, model, resumed };
}

describe("aborting a continued Task", () => {
	it("abort while the re-asked approval waits: one done after abort, and the next run's request is validly paired", async () => {
		const { runs, model, resumed } = await cutOffAfterW1();
		const c2 = new AbortController();
		const continued = await collect(
			resumed.continueTask({
				signal: c2.signal,
				approve: () => {
					c2.abort();
					return new Promise(() => {});
				},
			}),
		);
		const i = continued.findIndex((m) => m.type === "abort");
		expect(i).toBeGreaterThanOrEqual(0);
		expect(continued.slice(i + 1).map((m) => m.type)).toEqual(["done"]);
		expect(ofType(continued, "done")).toHaveLength(1);
		const next = await collect(resumed.run([userText("again")]));
		expect(lastDone(next)?.reason).toBe("model_stop");
		const sent = model.requests[0]?.messages ?? [];
		expect(pairingProblems(sent)).toEqual([]);
		expect(shape(sent)).toContain("out:w1:ok");
		expect(runs.filter((r) => r === "w1")).toHaveLength(1);
	});
});

describe("continueTask with a signal that already fired", () => {
	it("the finished output of the cut-off turn still reaches the model in the next run (not an interrupted placeholder)", async () => {
		const { runs, model, resumed } = await cutOffAfterW1();
		// w1 has run: its output is in the Trace before w2 is asked.
		expect(runs).toEqual(["w1"]);
		expect(resumed.unfinishedTask?.stage).toBe("tools");
		const already = new AbortController();
		already.abort();
		const continued = await collect(resumed.continueTask({ signal: already.signal, approve: async () => "allow" }));
		expect(ofType(continued, "done")).toMatchObject([{ reason: "user_abort" }]);
		await collect(resumed.run([userText("again")]));
		const sent = model.requests[0]?.messages ?? [];
		expect(pairingProblems(sent)).toEqual([]);
		expect(shape(sent)).toEqual(["user:go", "call:w1", "call:w2", "out:w1:ok", "out:w2:interrupted", "user:again"]);
	});
});

describe("continuing twice", () => {
	it("a continued Task that crashes again is continued again: each call runs once, the model sees one output per call", async () => {
		const runs: string[] = [];
		const write = recordedWrite(runs);
		const { session, home } = await harness(
			[[callTool("write", { text: "a" }, "w1"), callTool("write", { text: "b" }, "w2")]],
			{ tools: [write], checkpoints: false },
		);
		const { crashed: crashed1 } = await crashAtApproval(session, home);
		const m1 = new ScriptedModel([[say("never")]]);
		const r1 = await resumeCrashed(crashed1, session.id, m1, { tools: [write], checkpoints: false });
		const c2 = new AbortController();
		let crashed2 = "";
		const out1 = await collect(
			r1.continueTask({
				signal: c2.signal,
				approve: async (call) => {
					if (call.callId === "w1") return "allow";
					crashed2 = crashCopy(crashed1, session.id);
					c2.abort();
					return new Promise(() => {});
				},
			}),
		);
		expect(runs).toEqual(["w1"]);
		const m2 = new ScriptedModel([[say("done")]]);
		const r2 = await resumeCrashed(crashed2, session.id, m2, { tools: [write], checkpoints: false });
		expect(r2.unfinishedTask?.pendingConfirmations.map((p) => p.callId)).toEqual(["w2"]);
		const out2 = await collect(r2.continueTask({ approve: async () => "allow" }));
		expect(lastDone(out2)?.reason).toBe("model_stop");
		expect(runs).toEqual(["w1", "w2"]);
		const sent = m2.requests[0]?.messages ?? [];
		expect(pairingProblems(sent)).toEqual([]);
		expect(shape(sent)).toEqual(["user:go", "call:w1", "call:w2", "out:w1:ok", "out:w2:ok"]);
		const maxSeq1 = Math.max(...out1.map((m) => m.seq));
		expect(Math.min(...out2.map((m) => m.seq))).toBeGreaterThan(maxSeq1);
	});
});

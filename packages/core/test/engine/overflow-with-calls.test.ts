import { afterEach, describe, expect, it } from "vitest";
import { callTool, fail, say, wait } from "../../src/model/scripted.js";
import {
	cleanup,
	countedEcho,
	harness,
	lastDone,
	ofType,
	pairingProblems,
	runText,
	scriptByPurpose,
} from "../harness.js";

afterEach(cleanup);

const overflow = fail({ class: "fatal", message: "context_length_exceeded", status: 400, contextOverflow: true });

describe("a context overflow after a read-only call already ran in the turn", () => {
	it("the compaction and the retried request stay validly paired, the call runs once, and the Task ends model_stop", async () => {
		const runs: string[] = [];
		const { session, model } = await harness(
			scriptByPurpose(
				[[callTool("read", { text: "a" }, "c1"), wait(20), overflow], [say("done")]],
				[[say("[summary]s[/summary]")]],
			),
			{ tools: [countedEcho(runs, { name: "read" })], approval: { "*": "allow" } },
		);
		const out = await runText(session, "go");
		for (const r of model.requests) expect(pairingProblems(r.messages)).toEqual([]);
		expect(runs).toEqual(["c1"]);
		expect(ofType(out, "done")).toHaveLength(1);
		expect(lastDone(out)?.reason).toBe("model_stop");
	});
});

describe("a context overflow while a read-only call of the turn still runs", () => {
	it("the Task does not fail with an internal error; the call runs once and gets at most one output", async () => {
		const runs: string[] = [];
		const { session, model } = await harness(
			scriptByPurpose(
				[[callTool("read", { text: "a", ms: 100 }, "c1"), wait(5), overflow], [say("done")]],
				[[say("[summary]s[/summary]")]],
			),
			{ tools: [countedEcho(runs, { name: "read" })], approval: { "*": "allow" } },
		);
		const out = await runText(session, "go");
		for (const r of model.requests) expect(pairingProblems(r.messages)).toEqual([]);
		expect(runs).toEqual(["c1"]);
		expect(ofType(out, "tool_call_output").filter((o) => o.callId === "c1")).toHaveLength(1);
		expect(lastDone(out)).toMatchObject({ reason: "model_stop" });
	});
});

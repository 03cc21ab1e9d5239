import { afterEach, describe, expect, it } from "vitest";
import { callTool, fail, say, wait } from "../../src/model/scripted.js";
import {
	cleanup,
	countedEcho,
	harness,
	lastDone,
	nextRequestLiveAndResumed,
	ofType,
	pairingProblems,
	recordedWrite,
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

describe("a context overflow while a person is asked about a call of the turn", () => {
	it("each call gets its one decision and one output before the next request; the person is asked no more, the queued call never", async () => {
		const runs: string[] = [];
		const { session, model } = await harness(
			scriptByPurpose(
				[
					[callTool("write", { text: "a" }, "w1"), callTool("write", { text: "b" }, "w2"), wait(30), overflow],
					[say("done")],
				],
				[[say("[summary]s[/summary]")]],
			),
			{ tools: [recordedWrite(runs)] },
		);
		const asked: AbortSignal[] = [];
		const out = await runText(session, "go", {
			approve: (_call, { signal }) => {
				asked.push(signal);
				return new Promise((resolve) => signal.addEventListener("abort", () => resolve("allow"), { once: true }));
			},
		});
		// The compaction's request is the next one after the turn that overflowed.
		const requests = out.flatMap((m, i) => (m.type === "request_begin" ? [i] : []));
		const before = out.slice(0, requests[1]);
		expect(out[(requests[1] ?? 0) - 1]?.type).toBe("compaction_begin");
		for (const id of ["w1", "w2"]) {
			expect(before.filter((m) => m.type === "approval_decision" && m.callId === id)).toHaveLength(1);
			expect(before.filter((m) => m.type === "tool_call_output" && m.callId === id)).toMatchObject([
				{ status: "interrupted" },
			]);
		}
		expect(asked).toHaveLength(1);
		expect(asked[0]?.aborted).toBe(true);
		expect(ofType(out, "confirmation_required").map((m) => m.callId)).toEqual(["w1"]);
		expect(runs).toEqual([]);
		for (const r of model.requests) expect(pairingProblems(r.messages)).toEqual([]);
		expect(lastDone(out)?.reason).toBe("model_stop");
	});
});

describe("a context overflow whose compaction then fails", () => {
	it("the turn's [turn_aborted] note is in the context once: the next Task's request holds it once", async () => {
		const { session, model } = await harness(
			scriptByPurpose(
				[[callTool("read", { text: "a" }, "c1"), overflow], [say("ok")]],
				[[fail({ class: "fatal", message: "bad request", status: 400 })]],
			),
			{ tools: [countedEcho([], { name: "read" })], approval: { "*": "allow" } },
		);
		const out = await runText(session, "second");
		expect(lastDone(out)?.reason).toBe("error");
		await runText(session, "third");
		const last = model.requests.at(-1)?.messages ?? [];
		const notes = last.filter((m) => m.type === "user_text" && m.text.startsWith("[turn_aborted]"));
		expect(notes).toHaveLength(1);
		expect(last.at(-1)).toMatchObject({ type: "user_text", text: "third" });
		for (const r of model.requests) expect(pairingProblems(r.messages)).toEqual([]);
	});

	it("a Session resumed from its Trace sends the next Task what the live one would: the note names the overflow, not the compaction's failure", async () => {
		const tools = [countedEcho([], { name: "read" })];
		const { live, resumed } = await nextRequestLiveAndResumed({ tools, approval: { "*": "allow" } }, async () => ({
			turns: scriptByPurpose(
				[[callTool("read", { text: "a" }, "c1"), overflow], [say("ok")]],
				[[fail({ class: "fatal", message: "bad request", status: 400 })]],
			),
			async runFirst(session) {
				expect(lastDone(await runText(session, "second"))?.reason).toBe("error");
			},
		}));
		expect(resumed).toEqual(live);
		expect(live).toEqual([
			"user:second",
			expect.stringMatching(/^user:\[turn_aborted\]This turn failed .*context_length_exceeded/),
			"user:next",
		]);
	});
});

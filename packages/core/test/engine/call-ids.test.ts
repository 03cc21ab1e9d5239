import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import { createGate } from "../../src/model/gate.js";
import { callTool, holdAt, say } from "../../src/model/scripted.js";
import {
	cleanup,
	collect,
	countedEcho,
	echoTool,
	harness,
	lastDone,
	ofType,
	pairingProblems,
	runText,
	scriptByPurpose,
	shape,
	summary,
} from "../harness.js";

afterEach(cleanup);

describe("a call id the model repeats", () => {
	it("gets a fresh one: each id runs once, every call is answered, the Task does not hang", async () => {
		const runs: string[] = [];
		const counted = countedEcho(runs);
		const { session, model } = await harness(
			[
				[callTool("echo", { text: "a" }, "dup"), callTool("echo", { text: "b" }, "dup")],
				[callTool("echo", { text: "c" }, "dup")],
				[say("ok")],
			],
			{ tools: [counted] },
		);
		const out = await runText(session, "go");
		expect(runs).toEqual(["dup", "dup_2", "dup_3"]);
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(shape(model.requests[2]?.messages ?? [])).toEqual([
			"user:go",
			"call:dup",
			"call:dup_2",
			"out:dup:ok",
			"out:dup_2:ok",
			"call:dup_3",
			"out:dup_3:ok",
		]);
	});

	it("the call's fragments carry its fresh id too, so a client groups them under the right call", async () => {
		const { session } = await harness(
			[[callTool("echo", { text: "a" }, "dup")], [callTool("echo", { text: "b" }, "dup")], [say("ok")]],
			{ tools: [echoTool()] },
		);
		const out = await runText(session, "go");
		const calls = ofType(out, "tool_call");
		expect(calls.map((c) => c.callId)).toEqual(["dup", "dup_2"]);
		for (const call of calls) {
			const fragments = ofType(out, "partial_tool_call").filter((p) => p.id === call.id);
			expect(fragments.length, call.callId).toBeGreaterThan(0);
			expect(new Set(fragments.map((p) => p.callId)), call.callId).toEqual(new Set([call.callId]));
		}
	});

	it("after a compaction and a resume still gets a fresh id: no tool runs twice", async () => {
		const runs: string[] = [];
		const counted = countedEcho(runs);
		const { session, agent } = await harness(
			scriptByPurpose(
				[
					[callTool("echo", { text: "a" }, "same")],
					[say("ok")],
					[say("compacted and ok")],
					[callTool("echo", { text: "b" }, "same")],
					[say("ok")],
				],
				[[say("[summary]s[/summary]")]],
			),
			{ tools: [counted], settings: { compaction: { maxSessionTurns: 2 } } },
		);
		await runText(session, `first ${"(details) ".repeat(5)}`);
		await runText(session, "second"); // compacts first: the latest Trace file no longer holds the first call
		session.close();
		const resumed = await agent.resumeSession(session.id);
		expect(resumed.context.some((m) => m.type === "tool_call")).toBe(false);
		await runText(resumed, "third");
		expect(runs).toEqual(["same", "same_2"]);
	});

	it("after a person stopped a turn mid-output and a resume (the turn is a note in the context), a repeated id still gets a fresh one", async () => {
		const runs: string[] = [];
		const gate = createGate();
		const { session, agent } = await harness(
			[[callTool("echo", { text: "a" }, "c1"), holdAt(gate)], [callTool("echo", { text: "b" }, "c1")], [say("ok")]],
			{ tools: [countedEcho(runs)] },
		);
		const controller = new AbortController();
		for await (const m of session.run([userText("go")], { signal: controller.signal })) {
			if (m.type === "tool_call_output") gate.reached.then(() => controller.abort());
		}
		expect(runs).toEqual(["c1"]);
		session.close();
		const resumed = await agent.resumeSession(session.id);
		expect(resumed.context.some((m) => m.type === "tool_call")).toBe(false);
		await runText(resumed, "again");
		expect(runs).toEqual(["c1", "c1_2"]);
	});

	it("in a compaction's summary reply, calling a tool with an id already in the context, is still answered with a validly paired resend (no id twice)", async () => {
		const { session, model } = await harness(
			scriptByPurpose(
				[[callTool("echo", { text: "a" }, "c1")], [say("done")]],
				[[callTool("echo", { text: "b" }, "c1")], summary("s")],
			),
			{ tools: [echoTool()] },
		);
		await runText(session, "go");
		const out = await collect(session.compact());
		expect(ofType(out, "compaction_end")[0]?.status).toBe("ok");
		const resend = model.requests.filter((r) => r.purpose === "compaction")[1];
		expect(pairingProblems(resend?.messages ?? [])).toEqual([]);
		const ids = (resend?.messages ?? []).flatMap((m) => (m.type === "tool_call" ? [m.callId] : []));
		expect(ids).toEqual(["c1", "c1_2"]);
	});
});

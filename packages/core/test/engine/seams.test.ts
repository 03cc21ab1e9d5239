import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, fail, say } from "../../src/model/scripted.js";
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
} from "../harness.js";

afterEach(cleanup);

const summary = (text: string) => [say(`[summary]${text}[/summary]`)];
const blip = fail({ class: "timeout", message: "socket hang up" });
/** Reconnects after 1 ms, so these tests need no fake clock. */
const instantReconnect = { reconnect: { baseMs: 1 } };

/**
 * Runs until the model's output has completed and the fast call's output is out, then aborts:
 * f1 finished, s1 still running (Case A).
 */
async function abortWhileToolsRun(session: Parameters<typeof runText>[0]): Promise<OmniMessage[]> {
	const controller = new AbortController();
	const out: OmniMessage[] = [];
	for await (const m of session.run([userText("go")], { signal: controller.signal })) {
		out.push(m);
		const seen = (type: string) => out.some((o) => o.type === type);
		if (seen("request_end") && ofType(out, "tool_call_output").some((o) => o.callId === "f1")) controller.abort();
	}
	expect(ofType(out, "abort")[0]?.carryOver).toBe("A");
	return out;
}

const twoTools = [callTool("echo", { text: "fast" }, "f1"), callTool("echo", { text: "slow", ms: 60_000 }, "s1")];

describe("compaction after an interrupted Task", () => {
	it("session.compact() right after an abort while tools run sends a validly paired request, and the finished tool's result reaches the model", async () => {
		const { session, model } = await harness(scriptByPurpose([twoTools, [say("next")]], [summary("s")]), {
			tools: [echoTool()],
		});
		const out = await abortWhileToolsRun(session);
		expect(lastDone(out)?.reason).toBe("user_abort");
		const compaction = await collect(session.compact());
		expect(ofType(compaction, "compaction_end")[0]?.status).toBe("ok");
		const request = model.requests.find((r) => r.purpose === "compaction");
		expect(pairingProblems(request?.messages ?? [])).toEqual([]);
		expect(shape(request?.messages ?? []).slice(0, 5)).toEqual([
			"user:go",
			"call:f1",
			"call:s1",
			"out:f1:ok",
			"out:s1:interrupted",
		]);
		// Summarized, it is not sent again: the next run starts from the summary.
		await runText(session, "next");
		const next = model.requests.at(-1)?.messages ?? [];
		expect(shape(next)).toEqual(["user:[context_summary]s[/context_summary]", "user:next"]);
	});

	it("an automatic compaction before the next run summarizes the carry-over too", async () => {
		const { session, model } = await harness(scriptByPurpose([twoTools, [say("next")]], [summary("s")]), {
			tools: [echoTool()],
			settings: { compaction: { maxSessionTurns: 1 } },
		});
		await abortWhileToolsRun(session);
		await runText(session, "next");
		const request = model.requests.find((r) => r.purpose === "compaction");
		expect(pairingProblems(request?.messages ?? [])).toEqual([]);
		expect(shape(request?.messages ?? [])).toContain("out:f1:ok");
	});
});

describe("reconnect never re-runs a call", () => {
	it("when the response to a reconnect streams again a call the failed attempt already started (same call id in the same turn), it is that call: not executed a second time", async () => {
		const runs: string[] = [];
		const { session, model } = await harness(
			[
				[callTool("echo", { text: "a" }, "c1"), blip],
				[callTool("echo", { text: "a" }, "c1"), say("done")],
				[say("ok")],
			],
			{ tools: [countedEcho(runs)], settings: instantReconnect },
		);
		const out = await runText(session, "go");
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(runs).toEqual(["c1"]);
		expect(ofType(out, "tool_call").map((c) => c.callId)).toEqual(["c1"]);
		expect(ofType(out, "tool_call_output").map((o) => o.callId)).toEqual(["c1"]);
		const last = model.requests.at(-1)?.messages ?? [];
		expect(pairingProblems(last)).toEqual([]);
		expect(shape(last)).toEqual(["user:go", "call:c1", "assistant:done", "out:c1:ok"]);
	});

	it("a new call in the reconnect's response still runs", async () => {
		const runs: string[] = [];
		const { session } = await harness(
			[[callTool("echo", { text: "a" }, "c1"), blip], [callTool("echo", { text: "b" }, "c2")], [say("ok")]],
			{ tools: [countedEcho(runs)], settings: instantReconnect },
		);
		await runText(session, "go");
		expect(runs.sort()).toEqual(["c1", "c2"]);
	});
});

describe("reconnect input", () => {
	it("when nothing had streamed before a failure, the reconnect re-sends the original input as it was", async () => {
		const { session, model } = await harness([[blip], [say("ok")]], { settings: instantReconnect });
		await runText(session, "go");
		expect(model.requests).toHaveLength(2);
		expect(model.requests[1]?.messages).toEqual(model.requests[0]?.messages);
	});

	it("with partial output, the reconnect sends the [turn_retried] block carrying it", async () => {
		const { session, model } = await harness([[{ type: "text_deltas", chunks: ["half an ans"] }, blip], [say("ok")]], {
			settings: instantReconnect,
		});
		await runText(session, "go");
		const retried = model.requests[1]?.messages.at(-1);
		expect(retried?.type === "user_text" && retried.text).toMatch(/^\[turn_retried\][\s\S]*half an ans/);
	});
});

describe("compaction validation with a repeated id", () => {
	it("a summary reply that calls a tool with an id already in the context is still answered with a validly paired resend (no id twice)", async () => {
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

describe("the built-in system prompt", () => {
	it("an agent with no system gets a built-in system prompt (what it is, the workspace path, the OS, the date, its tools, to ask before destructive actions), byte-identical on every request of the Session, resumed or compacted", async () => {
		const { session, model, agent, workspace } = await harness(
			scriptByPurpose([[callTool("echo", { text: "a" }, "c1")], [say("done")]], [summary("s")]),
			{ tools: [echoTool()] },
		);
		await runText(session, "go");
		await collect(session.compact());
		const resumed = await agent.resumeSession(session.id);
		await runText(resumed, "again");
		const systems = new Set(model.requests.map((r) => r.system));
		expect(model.requests.length).toBeGreaterThanOrEqual(4);
		expect(systems.size).toBe(1);
		const system = model.requests[0]?.system ?? "";
		expect(system).toContain("omniloop");
		expect(system).toContain(workspace);
		expect(system).toContain(process.platform);
		expect(system).toContain(new Date().toISOString().slice(0, 10));
		expect(system).toContain("echo");
		expect(system).toMatch(/ask first/);
	});

	it('system: "" opts out: no system prompt is sent', async () => {
		const { session, model } = await harness([[say("ok")]], { system: "" });
		await runText(session, "go");
		expect(model.requests[0]?.system).toBeUndefined();
	});
});

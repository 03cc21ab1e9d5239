import { afterEach, describe, expect, it } from "vitest";
import { CRASHED_BEFORE_START, CRASHED_WHILE_RUNNING } from "../../src/engine/continuation/unfinished-turn.js";
import { RunInputError } from "../../src/engine/session/errors.js";
import { DENIED_OUTPUT, userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, ScriptedModel, type ScriptedStep, say, wait } from "../../src/model/scripted.js";
import type { Tool } from "../../src/tools/tool.js";
import { crashAtApproval, crashCopy, resumeCrashed } from "../crash-helpers.js";
import { cleanup, collect, harness, lastDone, ofType, pairingProblems, recordedWrite, shape } from "../harness.js";

afterEach(cleanup);

/**
 * Runs "go" and crashes (copies the Session's folder as the disk holds it, abandons the original)
 * at the first message `crashAt` accepts, or when the host is asked to approve.
 */
async function crashDuring(
	calls: ScriptedStep[],
	tools: Tool[],
	crashAt: "approve" | ((m: OmniMessage) => boolean),
): Promise<{ crashed: string; sessionId: string; out: OmniMessage[] }> {
	const { session, home } = await harness([calls], { tools });
	if (crashAt === "approve") return { ...(await crashAtApproval(session, home)), sessionId: session.id };
	const controller = new AbortController();
	let crashed = "";
	const out: OmniMessage[] = [];
	// A person who never answers: a call the crash does not reach waits, as before a real crash.
	const approve = () => new Promise<"allow">(() => {});
	for await (const m of session.run([userText("go")], { signal: controller.signal, approve })) {
		out.push(m);
		if (crashed === "" && crashAt(m)) {
			crashed = crashCopy(home, session.id);
			controller.abort();
		}
	}
	return { crashed, sessionId: session.id, out };
}

describe("continueTask: a Task that was waiting on approvals when its process ended", () => {
	it("asks the same pending call again (same correlation id), runs it once when approved, and goes on to its done; the model sees the history it would have seen had nothing happened", async () => {
		const runs: string[] = [];
		const write = recordedWrite(runs);
		const { crashed, sessionId, out } = await crashDuring([callTool("write", { text: "a" }, "w1")], [write], "approve");
		const asked = ofType(out, "confirmation_required")[0];
		expect(runs).toEqual([]);

		const model = new ScriptedModel([[say("done")]]);
		const resumed = await resumeCrashed(crashed, sessionId, model, { tools: [write] });
		expect(resumed.unfinishedTask?.stage).toBe("tools");
		expect(resumed.unfinishedTask?.pendingConfirmations).toEqual([
			{
				correlationId: asked?.correlationId,
				callId: "w1",
				name: "write",
				arguments: '{"text":"a"}',
				requestedAt: asked?.ts,
			},
		]);
		const ids: string[] = [];
		const continued = await collect(
			resumed.continueTask({
				approve: async (_call, { correlationId }) => {
					ids.push(correlationId);
					return "allow";
				},
			}),
		);
		expect(ids).toEqual([asked?.correlationId]);
		expect(ofType(continued, "confirmation_required").map((m) => m.correlationId)).toEqual([asked?.correlationId]);
		expect(ofType(continued, "approval_decision")).toMatchObject([
			{ callId: "w1", decision: "allow", by: "user", correlationId: asked?.correlationId },
		]);
		expect(runs).toEqual(["w1"]);
		expect(lastDone(continued)?.reason).toBe("model_stop");
		const sent = model.requests[0]?.messages ?? [];
		expect(shape(sent)).toEqual(["user:go", "call:w1", "out:w1:ok"]);
		expect(sent.some((m) => m.type === "user_text" && m.text.includes("interrupted"))).toBe(false);
		expect(resumed.unfinishedTask).toBeUndefined();
	});

	it("with askAhead, every pending call is listed after the restart and asked again under its id, in call order", async () => {
		const runs: string[] = [];
		const write = recordedWrite(runs);
		const { session, home } = await harness(
			[[callTool("write", { text: "a" }, "w1"), callTool("write", { text: "b" }, "w2")]],
			{
				tools: [write],
			},
		);
		const { crashed, out } = await crashAtApproval(session, home, { askAhead: true });
		const announced = ofType(out, "confirmation_required");
		expect(announced.map((m) => m.callId)).toEqual(["w1", "w2"]);
		const model = new ScriptedModel([[say("done")]]);
		const resumed = await resumeCrashed(crashed, session.id, model, { tools: [write] });
		expect(resumed.unfinishedTask?.pendingConfirmations.map((p) => [p.callId, p.correlationId])).toEqual(
			announced.map((m) => [m.callId, m.correlationId]),
		);
		const asked: string[] = [];
		const continued = await collect(
			resumed.continueTask({
				askAhead: true,
				approve: async (call, { correlationId }) => {
					asked.push(`${call.callId}:${correlationId}`);
					return call.callId === "w1" ? "allow" : "deny";
				},
			}),
		);
		expect(asked).toEqual(announced.map((m) => `${m.callId}:${m.correlationId}`));
		// Announced again, all at once, under the same ids (not fresh ones for the later calls).
		expect(ofType(continued, "confirmation_required").map((m) => `${m.callId}:${m.correlationId}`)).toEqual(
			announced.map((m) => `${m.callId}:${m.correlationId}`),
		);
		expect(runs).toEqual(["w1"]);
		expect(shape(model.requests[0]?.messages ?? [])).toEqual([
			"user:go",
			"call:w1",
			"call:w2",
			"out:w1:ok",
			"out:w2:denied",
		]);
		expect(lastDone(continued)?.reason).toBe("model_stop");
	});

	it("a denied pending call gets its denial output, and the Task goes on", async () => {
		const runs: string[] = [];
		const write = recordedWrite(runs);
		const { crashed, sessionId } = await crashDuring([callTool("write", { text: "a" }, "w1")], [write], "approve");
		const model = new ScriptedModel([[say("understood")]]);
		const resumed = await resumeCrashed(crashed, sessionId, model, { tools: [write] });
		const continued = await collect(resumed.continueTask({ approve: async () => "deny" }));
		expect(ofType(continued, "tool_call_output")).toMatchObject([
			{ callId: "w1", status: "denied", output: DENIED_OUTPUT },
		]);
		expect(runs).toEqual([]);
		expect(lastDone(continued)?.reason).toBe("model_stop");
		expect(shape(model.requests[0]?.messages ?? [])).toEqual(["user:go", "call:w1", "out:w1:denied"]);
	});

	it("a call that had started gets an interrupted output and is never run again; a finished one keeps its output", async () => {
		const runs: string[] = [];
		const read = { ...recordedWrite(runs), name: "read", readOnly: true };
		const slow = recordedWrite(runs, 60_000);
		// w1 (read-only) runs and finishes while the stream goes on; w2 starts when it ends, and
		// its write-ahead puts w1's output on disk too.
		const calls = [callTool("read", { text: "a" }, "w1"), wait(30), callTool("write", { text: "b" }, "w2")];
		const tools = [read, slow];
		const { session, home } = await harness([calls], { tools, approval: { "*": "allow" } });
		const controller = new AbortController();
		let crashed = "";
		for await (const m of session.run([userText("go")], { signal: controller.signal })) {
			if (crashed === "" && m.type === "tool_start" && m.callId === "w2") {
				while (!runs.includes("w2")) await new Promise((r) => setImmediate(r));
				crashed = crashCopy(home, session.id);
				controller.abort();
			}
		}
		const model = new ScriptedModel([[say("ok")]]);
		const resumed = await resumeCrashed(crashed, session.id, model, { tools, approval: { "*": "allow" } });
		const continued = await collect(resumed.continueTask());
		expect(lastDone(continued)?.reason).toBe("model_stop");
		expect(runs).toEqual(["w1", "w2"]);
		const sent = model.requests[0]?.messages ?? [];
		expect(pairingProblems(sent)).toEqual([]);
		expect(sent.filter((m) => m.type === "tool_call_output")).toMatchObject([
			{ callId: "w1", status: "ok", output: "wrote a" },
			{ callId: "w2", status: "interrupted", output: CRASHED_WHILE_RUNNING },
		]);
	});

	it("run() instead of continueTask() gives the Task up: the pending call gets a placeholder saying it did not run", async () => {
		const runs: string[] = [];
		const write = recordedWrite(runs);
		const { crashed, sessionId } = await crashDuring([callTool("write", { text: "a" }, "w1")], [write], "approve");
		const model = new ScriptedModel([[say("ok")]]);
		const resumed = await resumeCrashed(crashed, sessionId, model, { tools: [write] });
		const out = await collect(resumed.run([userText("something else")]));
		expect(lastDone(out)?.reason).toBe("model_stop");
		const sent = model.requests[0]?.messages ?? [];
		expect(shape(sent)).toEqual(["user:go", "call:w1", "out:w1:interrupted", "user:something else"]);
		expect(sent.find((m) => m.type === "tool_call_output")).toMatchObject({ output: CRASHED_BEFORE_START });
		expect(runs).toEqual([]);
		expect(() => resumed.continueTask()).toThrow(RunInputError);
	});

	it("a Task cut off while the model was responding is continued by making the turn again", async () => {
		const { crashed, sessionId } = await crashDuring(
			[say("half"), callTool("write", { text: "a" }, "w1")],
			[recordedWrite([])],
			(m) => m.type === "assistant_text",
		);
		const model = new ScriptedModel([[say("whole answer")]]);
		const resumed = await resumeCrashed(crashed, sessionId, model, { tools: [recordedWrite([])] });
		expect(resumed.unfinishedTask?.stage).toBe("model");
		const continued = await collect(resumed.continueTask());
		expect(lastDone(continued)?.reason).toBe("model_stop");
		const last = model.requests[0]?.messages.at(-1);
		expect(last?.type === "user_text" && last.text).toMatch(/^\[turn_aborted\].*cut off/);
	});

	it("a Session whose last Task ended has nothing to continue", async () => {
		const { session } = await harness([[say("ok")]]);
		await collect(session.run([userText("go")]));
		expect(session.unfinishedTask).toBeUndefined();
		expect(() => session.continueTask()).toThrow(/no unfinished Task/);
	});
});

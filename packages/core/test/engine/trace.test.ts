import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { SessionNotFoundError } from "../../src/engine/session/errors.js";
import { userText } from "../../src/messages/constructors.js";
import { createGate } from "../../src/model/gate.js";
import { callTool, holdAt, say } from "../../src/model/scripted.js";
import { tool } from "../../src/tools/tool.js";
import { sessionDir } from "../../src/trace/trace-files.js";
import { readTrace, TraceFormatError } from "../../src/trace/trace-reader.js";
import { cleanup, echoTool, harness, ofType, runText, shape, tracedMessages, types } from "../harness.js";

afterEach(cleanup);

const tracePath = (home: string, id: string) => join(sessionDir(home, id), "trace.jsonl");

describe("The Trace", () => {
	it("starts with a header line, then holds model messages and events — no partials — one JSON object a line", async () => {
		const { session, home } = await harness(
			[[say("hello there", ["hello", " there"]), callTool("echo", { text: "a" })], [say("ok")]],
			{
				tools: [echoTool()],
			},
		);
		const out = await runText(session, "go");
		const lines = readFileSync(tracePath(home, session.id), "utf8").split("\n");
		expect(lines.at(-1)).toBe("");
		const header = JSON.parse(lines[0] as string);
		expect(header).toMatchObject({
			type: "trace_header",
			version: 1,
			sessionId: session.id,
			agentId: "test_agent",
			file: 1,
		});
		const traced = tracedMessages(home, session.id);
		expect(traced).toEqual(out.filter((m) => !m.type.startsWith("partial_")));
		expect(types(traced)).not.toContain("partial_text");
	});

	it("is flushed before waiting on approve: the pending call is on disk while the person decides", async () => {
		const write = tool({ name: "write", description: "w", parameters: z.object({}), execute: async () => "ok" });
		const { session, home } = await harness([[callTool("write", {}, "w1")], [say("ok")]], { tools: [write] });
		let onDisk: string[] = [];
		await runText(session, "go", {
			approve: async () => {
				onDisk = types(tracedMessages(home, session.id));
				return "allow";
			},
		});
		expect(onDisk.slice(0, 3)).toEqual(["user_text", "request_begin", "tool_call"]);
		expect(onDisk.at(-1)).toBe("confirmation_required");
	});

	it("is flushed at each turn boundary", async () => {
		const gate = createGate();
		const { session, home } = await harness(
			[[callTool("echo", { text: "a", ms: 5 }, "c1")], [holdAt(gate), say("ok")]],
			{
				tools: [echoTool()],
			},
		);
		const run = runText(session, "go");
		await gate.reached;
		expect(types(tracedMessages(home, session.id))).toEqual([
			"user_text",
			"request_begin",
			"tool_call",
			"approval_decision",
			// The read-only call starts at the next macrotask; this stream had ended by then.
			"token_usage",
			"request_end",
			"tool_start",
			"tool_call_output",
			"request_begin",
		]);
		gate.release();
		await run;
	});

	it("a reader ignores a torn last line and leaves out a damaged line elsewhere, naming it; only a bad header is a TraceFormatError", async () => {
		const { session, home } = await harness([[say("one")]]);
		await runText(session, "go");
		const path = tracePath(home, session.id);
		const whole = readTrace(path);
		appendFileSync(path, '{"type":"assistant_text","te');
		const torn = readTrace(path);
		expect(torn.tornLastLine).toBe(true);
		expect(torn.messages).toEqual(whole.messages);
		const lines = readFileSync(path, "utf8").split("\n");
		// The turn's one request_begin, wherever the seq reservations put it.
		const target = lines.findIndex((line) => line.includes('"type":"request_begin"'));
		expect(target).toBeGreaterThan(0);
		lines[target] = "{garbage";
		writeFileSync(path, lines.join("\n"));
		const damaged = readTrace(path);
		expect(damaged.damagedLines).toEqual([{ line: target + 1, problem: expect.stringMatching(/^not valid JSON/) }]);
		expect(damaged.messages).toEqual(whole.messages.filter((m) => m.type !== "request_begin"));
		lines[0] = "{not a header";
		writeFileSync(path, lines.join("\n"));
		expect(() => readTrace(path)).toThrow(TraceFormatError);
		expect(() => readTrace(path)).toThrow(
			new RegExp(`${path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:1: not valid JSON`),
		);
	});
});

describe("Resume", () => {
	it("agent.resumeSession(id) rebuilds the model context from the latest Trace file", async () => {
		const { session, agent, model } = await harness(
			[
				[callTool("echo", { text: "a", ms: 15 }, "a"), callTool("echo", { text: "b" }, "b")],
				[say("first done")],
				[say("second")],
			],
			{ tools: [echoTool()] },
		);
		await runText(session, "go");
		const live = session.context;
		const lastSeq = Math.max(...tracedMessages(agent.home, session.id).map((m) => m.seq));
		session.close();
		const resumed = await agent.resumeSession(session.id);
		// Outputs were traced in completion order (b before a); the rebuilt context has them in call order.
		expect(shape(resumed.context)).toEqual(shape(live));
		expect(shape(resumed.context)).toEqual([
			"user:go",
			"call:a",
			"call:b",
			"out:a:ok",
			"out:b:ok",
			"assistant:first done",
		]);
		const out = await runText(resumed, "next");
		// seq goes on from where the Trace left off, in the same file.
		expect(out[0]?.seq).toBe(lastSeq + 1);
		expect(shape(model.requests[2]?.messages ?? [])).toEqual([...shape(live), "user:next"]);
	});

	it("a Trace cut mid-turn resumes with valid pairing", async () => {
		const { session, agent, model, home } = await harness(
			[
				[callTool("echo", { text: "a", ms: 5 }, "a"), callTool("echo", { text: "b", ms: 50 }, "b")],
				[say("ok")],
				[say("resumed")],
			],
			{ tools: [echoTool()] },
		);
		await runText(session, "go");
		session.close();
		// Cut the file right after the first output, mid-line of the next.
		const path = tracePath(home, session.id);
		const text = readFileSync(path, "utf8");
		const cutAt = text.indexOf("\n", text.indexOf('"type":"tool_call_output"')) + 1;
		writeFileSync(path, `${text.slice(0, cutAt)}{"id":"x","ty`);
		const resumed = await agent.resumeSession(session.id);
		const out = await runText(resumed, "after the crash");
		expect(ofType(out, "done")[0]?.reason).toBe("model_stop");
		const sent = model.requests.at(-1)?.messages ?? [];
		expect(shape(sent)).toEqual([
			"user:go",
			"call:a",
			"call:b",
			"out:a:ok",
			"out:b:interrupted",
			"user:after the crash",
		]);
		// The torn bytes were moved aside, and the file reads cleanly.
		expect(readTrace(path).tornLastLine).toBe(false);
	});

	it("a damaged line in the middle of the Trace is moved aside on resume: its bytes kept beside the file, the offsets of the rest unchanged", async () => {
		const { session, agent, model, home } = await harness([[say("first")], [say("second")]]);
		await runText(session, "go");
		session.close();
		const path = tracePath(home, session.id);
		const lines = readFileSync(path, "utf8").split("\n");
		const at = lines.findIndex((l) => l.includes('"type":"request_begin"'));
		lines[at] = `{damaged${" ".repeat(20)}`;
		writeFileSync(path, lines.join("\n"));
		const size = readFileSync(path).length;
		const resumed = await agent.resumeSession(session.id);
		const out = await runText(resumed, "again");
		expect(ofType(out, "done")[0]?.reason).toBe("model_stop");
		expect(shape(model.requests.at(-1)?.messages ?? [])).toEqual(["user:go", "assistant:first", "user:again"]);
		const after = readFileSync(path);
		// Blanked in place: what was there before keeps its offsets; the new lines follow.
		expect(after.subarray(0, size).toString("utf8").split("\n")[at]?.trim()).toBe("");
		expect(readTrace(path).damagedLines).toEqual([]);
		const aside = readdirSync(sessionDir(home, session.id)).filter((n) => n.startsWith("trace.jsonl.damaged-"));
		expect(aside).toHaveLength(1);
		expect(readFileSync(join(sessionDir(home, session.id), aside[0] as string), "utf8")).toBe(`${lines[at]}\n`);
	});

	it("resuming an unknown Session is a clear error", async () => {
		const { agent } = await harness([]);
		await expect(agent.resumeSession("no-such-session")).rejects.toThrow(SessionNotFoundError);
	});

	it("the Session's usage survives a resume", async () => {
		const { session, agent } = await harness([
			[{ type: "usage", usage: { input: 4, output: 1 } }, say("x")],
			[say("y")],
		]);
		await runText(session, "go");
		session.close();
		const resumed = await agent.resumeSession(session.id);
		const out = await resumed.run([userText("again")]);
		const all = [];
		for await (const m of out) all.push(m);
		expect(ofType(all, "done")[0]?.sessionUsage).toMatchObject({ input: 4, output: 1, total: 5 });
	});
});

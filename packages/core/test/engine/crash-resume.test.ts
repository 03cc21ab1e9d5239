import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { CRASHED_WHILE_RUNNING } from "../../src/engine/continuation/unfinished-turn.js";
import type { Session } from "../../src/engine/session/session.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { createGate, sleep } from "../../src/model/gate.js";
import { callTool, holdAt, reportUsage, ScriptedModel, say } from "../../src/model/scripted.js";
import { type Tool, tool } from "../../src/tools/tool.js";
import { sessionDir, traceFileName } from "../../src/trace/trace-files.js";
import { readTrace } from "../../src/trace/trace-reader.js";
import { crashCopy, resumeCrashed, tracedUsageTotal } from "../crash-helpers.js";
import { cleanup, collect, echoTool, harness, lastDone, runText, scriptByPurpose, shape } from "../harness.js";

afterEach(cleanup);

/** A prompt long enough that a short summary is smaller than the conversation it replaces. */
const long = (text: string) => `${text} ${"(details) ".repeat(10)}`;
const spent = (input: number, output: number) => reportUsage({ input, output });

describe("Resume restores the Session exactly", () => {
	it("resume after a discard compaction keeps the token totals (the maxSessionTokens budget keeps counting) and seq (never from 1)", async () => {
		const { session, agent } = await harness(scriptByPurpose([[spent(500, 100), say("a")]], []), {
			settings: { maxSessionTokens: 1000, compaction: { mode: "discard" } },
		});
		await runText(session, "one");
		const compacted = await collect(session.compact());
		await session.close();
		const resumed = await agent.resumeSession(session.id);
		const out = await runText(resumed, "two");
		expect(out[0]?.seq).toBe((compacted.at(-1)?.seq ?? 0) + 1);
		expect(lastDone(out)?.sessionUsage.total).toBe(1200);
		expect(lastDone(await runText(resumed, "three"))?.reason).toBe("budget_exceeded");
	});

	it("resume after a summarize compaction keeps the token totals, the summary request's included, and seq", async () => {
		const { session, agent } = await harness(
			scriptByPurpose([[spent(300, 100), say("a")]], [[spent(200, 50), say("[summary]gist[/summary]")]]),
		);
		await runText(session, long("one"));
		const compacted = await collect(session.compact());
		await session.close();
		const resumed = await agent.resumeSession(session.id);
		const out = await runText(resumed, "two");
		expect(out[0]?.seq).toBe((compacted.at(-1)?.seq ?? 0) + 1);
		expect(lastDone(out)?.sessionUsage.total).toBe(400 + 250 + 400);
	});

	it("a Trace from before headers carried usageBefore and seqReserved still resumes with its totals and seq", async () => {
		const { session, agent, home } = await harness(scriptByPurpose([[spent(500, 100), say("a")]], []), {
			settings: { compaction: { mode: "discard" } },
		});
		await runText(session, "one");
		const compacted = await collect(session.compact());
		await session.close();
		// Rewrite both files as an older omniloop wrote them: no new header fields, no reservations.
		for (const n of [1, 2]) {
			const path = join(sessionDir(home, session.id), traceFileName(n));
			const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
			const [header, ...rest] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
			const { usageBefore: _u, seqReserved: _s, ...old } = header as Record<string, unknown>;
			const kept = rest.filter((record) => record.type !== "seq_reserved");
			writeFileSync(path, `${[old, ...kept].map((record) => JSON.stringify(record)).join("\n")}\n`);
		}
		const resumed = await agent.resumeSession(session.id);
		const out = await runText(resumed, "two");
		expect(out[0]?.seq).toBe((compacted.at(-1)?.seq ?? 0) + 1);
		expect(lastDone(out)?.sessionUsage.total).toBe(1200);
	});

	it("a crash after a compaction created its file but before its first write resumes from the file before it", async () => {
		const { session, agent, home } = await harness(
			scriptByPurpose([[spent(40, 10), say("a")], [say("b")]], [[say("[summary]gist[/summary]")]]),
		);
		await runText(session, long("one"));
		const live = session.context;
		await session.close();
		const dir = sessionDir(home, session.id);
		writeFileSync(join(dir, traceFileName(2)), "");
		const resumed = await agent.resumeSession(session.id);
		expect(shape(resumed.context)).toEqual(shape(live));
		expect(readdirSync(dir).filter((name) => name.startsWith("trace_002.jsonl.torn-"))).toHaveLength(1);
		// The compaction can run again, into a file of the same number.
		await collect(resumed.compact());
		expect(readTrace(join(dir, traceFileName(2))).messages.map((m) => m.type)).toEqual(["user_text"]);
		expect(lastDone(await runText(resumed, "two"))?.sessionUsage.total).toBe(50);
	});

	for (const how of ["crash", "close"] as const) {
		it(`after a discard compaction and a ${how}: seq goes on above every number handed out, the token totals are kept`, async () => {
			const { session, home } = await harness([[say("one", ["o", "n", "e"]), reportUsage({ input: 50, total: 50 })]], {
				settings: { compaction: { mode: "discard" } },
			});
			const seen: OmniMessage[] = [];
			seen.push(...(await collect(session.run([userText("a")]))));
			seen.push(...(await collect(session.compact())));
			let dir = home;
			if (how === "crash") dir = crashCopy(home, session.id);
			else await session.close();
			const model = new ScriptedModel([[say("two", ["t", "w", "o"]), reportUsage({ input: 5, total: 5 })]]);
			const resumed = await resumeCrashed(dir, session.id, model);
			const after = await collect(resumed.run([userText("b")]));
			const maxBefore = Math.max(...seen.map((m) => m.seq));
			expect(Math.min(...after.map((m) => m.seq))).toBeGreaterThan(maxBefore);
			expect(lastDone(after)?.sessionUsage.total).toBe(55);
			expect(tracedUsageTotal(dir, session.id)).toBe(55);
		});
	}
});

/** A tool that records, as it starts, the types of the Trace lines about its own call that are on disk. */
function onDiskAtStart(
	name: string,
	readOnly: boolean,
	tracePath: () => string,
	seen: Map<string, string[]>,
	started: () => void = () => {},
): Tool {
	return tool({
		name,
		description: name,
		parameters: z.object({}),
		readOnly,
		execute: async (_args, ctx) => {
			const messages = readTrace(tracePath()).messages;
			const mine = messages.filter((m) => "callId" in m && m.callId === ctx.callId).map((m) => m.type);
			seen.set(ctx.callId, [...mine, ...(messages.some((m) => m.type === "request_end") ? ["request_end"] : [])]);
			started();
			return "done";
		},
	});
}

describe("Write-ahead for tools", () => {
	it("a tool call and its approval decision are in the Trace file before the tool starts, read-only tools that start during streaming included", async () => {
		const gate = createGate();
		const seen = new Map<string, string[]>();
		let path = "";
		const lookStarted = createGate();
		const look = onDiskAtStart(
			"look",
			true,
			() => path,
			seen,
			() => lookStarted.release(),
		);
		const change = onDiskAtStart("change", false, () => path, seen);
		const { session, home } = await harness(
			[[callTool("look", {}, "r1"), holdAt(gate), callTool("change", {}, "w1")], [say("done")]],
			{ tools: [look, change] },
		);
		path = join(sessionDir(home, session.id), traceFileName(1));
		const run = runText(session, "go", { approve: async () => "allow" });
		await gate.reached;
		// The read-only call runs while the stream is held, before request_end (one that waited for the stream's end never would).
		await lookStarted.wait();
		gate.release();
		expect(lastDone(await run)?.reason).toBe("model_stop");
		expect(seen.get("r1")).toEqual(["tool_call", "approval_decision", "tool_start"]);
		expect(seen.get("w1")).toEqual([
			"tool_call",
			"confirmation_required",
			"approval_decision",
			"tool_start",
			"request_end",
		]);
	});

	it("after a crash and resume, a call that had started and has no output gets an interrupted output the model sees, and is never run again", async () => {
		const runs: string[] = [];
		const slow = tool({
			name: "change",
			description: "a slow write",
			parameters: z.object({}),
			execute: async (_args, ctx) => {
				runs.push(ctx.callId);
				await sleep(ctx.callId === "w1" ? 60_000 : 0, ctx.signal);
				return "written";
			},
		});
		const settings = { approval: { change: "allow" as const }, tools: [slow] };
		const { session, home } = await harness([[callTool("change", {}, "w1")]], settings);
		const controller = new AbortController();
		let crashed = "";
		for await (const m of session.run([userText("go")], { signal: controller.signal })) {
			if (m.type !== "tool_start" || crashed !== "") continue;
			while (runs.length === 0) await new Promise((resolve) => setImmediate(resolve));
			crashed = crashCopy(home, session.id);
			controller.abort();
		}
		// The model of the resumed Session calls w1 again, as a provider replaying the turn might.
		const model = new ScriptedModel([[callTool("change", {}, "w1")], [say("ok")]]);
		const resumed = await resumeCrashed(crashed, session.id, model, settings);
		expect(resumed.unfinishedTask).toEqual({ stage: "tools", pendingConfirmations: [] });
		const out = await runText(resumed, "continue");
		expect(model.requests[0]?.messages.find((m) => m.type === "tool_call_output")).toMatchObject({
			callId: "w1",
			status: "interrupted",
			output: CRASHED_WHILE_RUNNING,
		});
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(shape(model.requests[0]?.messages ?? [])).toEqual([
			"user:go",
			"call:w1",
			"out:w1:interrupted",
			"user:continue",
		]);
		expect(runs).toEqual(["w1", "w1_2"]);
	});
});

/** After each flush of the Session's Trace, how many tool_start lines its file holds (the writer reached past the API). */
function toolStartsPerFlush(session: Session, path: string): number[] {
	const trace = (session as unknown as { state: { trace: { flush(): void } } }).state.trace;
	const flush = trace.flush.bind(trace);
	const counts: number[] = [];
	trace.flush = () => {
		flush();
		counts.push(readTrace(path).messages.filter((m) => m.type === "tool_start").length);
	};
	return counts;
}

describe("Write-ahead for tools, batched", () => {
	it("calls that start together are written ahead in one write: read-only calls of one read, and held calls at the output's end", async () => {
		const look = echoTool({ name: "look" });
		const change = echoTool({ name: "change", readOnly: false });
		const calls = [0, 1, 2].flatMap((i) => [
			callTool("look", { text: `r${i}` }),
			callTool("change", { text: `w${i}` }),
		]);
		const { session, home } = await harness([calls, [say("done")]], {
			tools: [look, change],
			approval: { change: "allow" },
		});
		const counts = toolStartsPerFlush(session, join(sessionDir(home, session.id), traceFileName(1)));
		expect(lastDone(await runText(session, "go"))?.reason).toBe("model_stop");
		// The first block's reservation, the request_begin flush, then all six calls (three read-only, three held) in one write.
		expect(counts.slice(0, 3)).toEqual([0, 0, 6]);
	});
});

import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { CRASHED_WHILE_RUNNING } from "../../src/engine/continuation/unfinished-turn.js";
import type { RunOptions, Session } from "../../src/engine/session/session.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import type { ScriptedModel } from "../../src/model/scripted.js";
import { type Tool, tool } from "../../src/tools/tool.js";
import { latestTraceNumber, sessionDir, traceFileName } from "../../src/trace/trace-files.js";
import { readTrace } from "../../src/trace/trace-reader.js";
import { crashCopy, resumeCrashed, tracedUsageTotal } from "../crash-helpers.js";
import { cleanup, collect, harness, scriptByPurpose } from "../harness.js";
import { type CallPlan, type CrashPoint, type CrashSchedule, crashSchedule, planOf } from "./crash-schedule.js";
import { pairingProblems } from "./pairing-checker.js";
import { scriptFor } from "./scripted-turns.js";

/**
 * Random schedules that crash: at a random point of a Task (a message read, an approval asked)
 * the Session's folder is copied as the disk holds it at that instant — its last line sometimes
 * torn — and the Session is abandoned; a new agent resumes the copy and runs a new Task or
 * continues the cut-off one, which may crash in turn. Across the crashes: no call id runs twice,
 * seq only grows, every request is validly paired, a call that had started reaches the model as
 * interrupted, and the usage totals are the sum of the Trace's token_usage events.
 */

const RUNS = Number(process.env.OMNILOOP_CRASH_RUNS ?? 300);

const hops = async (n: number) => {
	for (let i = 0; i < n; i++) await Promise.resolve();
};

/** Where the crashes landed, so the note can say the schedules reach every phase. */
const phases = {
	streaming: 0,
	approval: 0,
	toolsRunning: 0,
	afterTheTask: 0,
	torn: 0,
	rotated: 0,
	continued: 0,
	twice: 0,
};

function countPhase(seen: readonly OmniMessage[], inApprove: boolean, point: CrashPoint): void {
	if (point.tear !== undefined) phases.torn++;
	if (seen.some((m) => m.type === "compaction_end")) phases.rotated++;
	const outputs = new Set(seen.flatMap((m) => (m.type === "tool_call_output" ? [m.callId] : [])));
	if (inApprove) phases.approval++;
	else if (seen.some((m) => m.type === "done")) phases.afterTheTask++;
	else if (seen.some((m) => m.type === "tool_start" && !outputs.has(m.callId))) phases.toolsRunning++;
	else phases.streaming++;
}

/** Calls with a tool_start and no output in the newest Trace file, as the disk holds it. */
function startedWithoutOutput(home: string, sessionId: string): string[] {
	const dir = sessionDir(home, sessionId);
	const { messages } = readTrace(join(dir, traceFileName(latestTraceNumber(dir))));
	const answered = new Set(messages.flatMap((m) => (m.type === "tool_call_output" ? [m.callId] : [])));
	return messages.flatMap((m) => (m.type === "tool_start" && !answered.has(m.callId) ? [m.callId] : []));
}

/** The seq the Session handed out last, partials included (read past the public API). */
const lastSeqOf = (session: Session) => (session as unknown as { state: { seq: number } }).state.seq;

function expectSeqGrows(messages: readonly OmniMessage[], above: number): void {
	messages.forEach((m, i) => {
		expect(m.seq).toBeGreaterThan(i === 0 ? above : (messages[i - 1] as OmniMessage).seq);
	});
}

/** One process: its Session, and whether it has crashed (its tools' runs count until then). */
interface Life {
	session: Session;
	home: string;
	crashed: boolean;
	start(options: RunOptions): AsyncGenerator<OmniMessage>;
}

/** Runs the life's Task until the crash point, copies its folder at that instant and abandons it. */
async function crashDuring(life: Life, point: CrashPoint, approve: RunOptions["approve"]) {
	const controller = new AbortController();
	const seen: OmniMessage[] = [];
	let copy = "";
	let seqAtCrash = 0;
	let inApprove = false;
	const crash = () => {
		if (life.crashed) return;
		copy = crashCopy(life.home, life.session.id, point.tear);
		seqAtCrash = lastSeqOf(life.session);
		life.crashed = true;
		controller.abort();
	};
	let approvals = 0;
	const options: RunOptions = {
		signal: controller.signal,
		approve: async (call, how) => {
			if (point.at === "approve" && point.n === approvals++) {
				inApprove = !life.crashed;
				crash();
			}
			return approve?.(call, how) ?? "deny";
		},
	};
	for await (const m of life.start(options)) {
		if (life.crashed) continue;
		seen.push(m);
		if (point.at === "message" && point.n === seen.length) crash();
	}
	crash(); // The point was never reached: the crash comes after the Task.
	countPhase(seen, inApprove, point);
	await life.session.close();
	return { seen, copy, seqAtCrash };
}

/**
 * Checks that the calls a resume found started, without an output, reach the model as interrupted:
 * in the first request, unless a compaction may have summarized or discarded them first.
 */
function expectInterrupted(callIds: readonly string[], requests: ScriptedModel["requests"], compacts: boolean): void {
	for (const callId of callIds) {
		const outputs = requests.flatMap((r) =>
			r.messages.filter((m) => m.type === "tool_call_output" && m.callId === callId),
		);
		for (const output of outputs)
			expect(output).toMatchObject({ status: "interrupted", output: CRASHED_WHILE_RUNNING });
		if (requests[0]?.purpose === "turn" && !compacts) expect(outputs.length, callId).toBeGreaterThan(0);
	}
}

async function runSchedule(s: CrashSchedule): Promise<void> {
	const { steps, plans } = scriptFor(s);
	const executions = new Map<string, number>();
	const toolsOf = (counts: () => boolean): Tool[] =>
		(["look", "change"] as const).map((name) =>
			tool({
				name,
				description: name,
				parameters: z.object({ id: z.string() }),
				readOnly: name === "look",
				execute: async ({ id }, ctx) => {
					if (counts()) executions.set(ctx.callId, (executions.get(ctx.callId) ?? 0) + 1);
					const plan = plans.get(id) as CallPlan;
					if (plan.timer) await new Promise((r) => setTimeout(r, plan.ticks % 3));
					else await hops(plan.ticks);
					if (ctx.signal.aborted) throw new Error("aborted");
					return `did ${id}`;
				},
			}),
		);
	const settings =
		s.compaction === undefined ? {} : { compaction: { maxSessionTurns: s.compaction.every, mode: s.compaction.mode } };
	const script = scriptByPurpose(
		[...steps, [{ type: "text", text: "anything else?" }]],
		[[{ type: "text", text: "[summary]s[/summary]" }]],
	);
	const approve: RunOptions["approve"] = async (call) => (planOf(plans, call.callId).allow ? "allow" : "deny");
	const first = await harness(script, { tools: toolsOf(() => !life.crashed), settings });
	const { model } = first;
	const sessionId = first.session.id;
	let life: Life = {
		session: first.session,
		home: first.home,
		crashed: false,
		start: (options) => first.session.run([userText("start")], options),
	};
	let above = 0;
	/** Per resume: the calls it found started without an output, and where its requests begin. */
	const resumes: { started: string[]; from: number }[] = [];
	for (const point of s.crashes) {
		const { seen, copy, seqAtCrash } = await crashDuring(life, point, approve);
		// Seq strictly increasing across the crash: above every number the crashed Session handed out.
		expectSeqGrows(seen, above);
		above = seqAtCrash;
		const next: Life = { crashed: false, home: copy } as Life;
		next.session = await resumeCrashed(copy, sessionId, model, { tools: toolsOf(() => !next.crashed), settings });
		resumes.push({ started: startedWithoutOutput(copy, sessionId), from: model.requests.length });
		const continued = point.follow === "continue" && next.session.unfinishedTask !== undefined;
		if (continued) phases.continued++;
		next.start = (options) =>
			continued ? next.session.continueTask(options) : next.session.run([userText("follow up")], options);
		life = next;
	}
	if (s.crashes.length > 1) phases.twice++;
	const follow = await collect(life.start({ approve }));
	await life.session.close();

	const done = follow.filter((m) => m.type === "done");
	expect(done).toHaveLength(1);
	expect(["model_stop", "loop_detected"]).toContain((follow.at(-1) as { reason: string }).reason);
	expectSeqGrows(follow, above);
	// Every request the model received, before and after each crash, validly paired.
	for (const request of model.requests) expect(pairingProblems(request.messages)).toEqual([]);
	resumes.forEach((resume, i) => {
		const requests = model.requests.slice(resume.from, resumes[i + 1]?.from);
		expectInterrupted(resume.started, requests, s.compaction !== undefined);
	});
	// No call id executed twice: runs started before each crash instant plus runs after the last resume.
	for (const [id, count] of executions) expect(count, id).toBe(1);
	// The Session's totals are the sum of the token_usage events in its Trace, as the disk holds it.
	expect(done[0]?.type === "done" && done[0].sessionUsage.total).toBe(tracedUsageTotal(life.home, sessionId));
}

describe("random schedules that crash keep the guarantees of docs/protocol.md §5.1 across the resume", () => {
	afterEach(cleanup);

	it(`${RUNS} crashing schedules: no call id executed twice, seq strictly increasing across the crash, every request validly paired, usage equal to the sum of token_usage`, async () => {
		const started = performance.now();
		await fc.assert(
			fc.asyncProperty(crashSchedule, async (s) => {
				try {
					await runSchedule(s);
				} finally {
					cleanup();
				}
			}),
			{
				numRuns: RUNS,
				...(process.env.OMNILOOP_CRASH_EXAMPLE ? { examples: [[JSON.parse(process.env.OMNILOOP_CRASH_EXAMPLE)]] } : {}),
			},
		);
		const seconds = (performance.now() - started) / 1000;
		console.log(`crash property: ${RUNS} schedules in ${seconds.toFixed(1)} s; crashes: ${JSON.stringify(phases)}`);
		const { streaming, approval, toolsRunning, torn, continued, twice } = phases;
		expect(streaming * approval * toolsRunning * torn * continued * twice).toBeGreaterThan(0);
	}, 300_000);
});

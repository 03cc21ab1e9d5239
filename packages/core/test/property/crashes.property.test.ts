import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Session } from "../../src/engine/session/context-engine.js";
import { CRASHED_WHILE_RUNNING } from "../../src/engine/turn/unfinished-turn.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import type { ScriptedStep } from "../../src/model/scripted.js";
import { type Tool, tool } from "../../src/tools/tool.js";
import { latestTraceNumber, sessionDir, traceFileName } from "../../src/trace/trace-files.js";
import { readTrace } from "../../src/trace/trace-reader.js";
import { crashCopy, resumeCrashed, tracedUsageTotal } from "../crash-helpers.js";
import { cleanup, collect, harness, scriptByPurpose } from "../harness.js";
import { pairingProblems } from "./pairing-checker.js";

/**
 * Random schedules that crash: at a random point of a Task (a message read, an approval asked)
 * the Session's folder is copied as the disk holds it at that instant — its last line sometimes
 * torn — and the Session is abandoned; a new agent resumes the copy and runs a follow-up Task.
 * Across the crash: no call id runs twice, seq only grows, every request is validly paired, and
 * the usage totals are the sum of the Trace's token_usage events.
 */

const RUNS = Number(process.env.OMNILOOP_CRASH_RUNS ?? 500);

interface CallPlan {
	readOnly: boolean;
	/** Work before the tool finishes: microtask hops, or a real timer when `timer` is set. */
	ticks: number;
	timer: boolean;
	allow: boolean;
}

interface CrashSchedule {
	turns: { text: string[]; calls: CallPlan[] }[];
	/** Where the crash lands: after the n-th message read, or inside the n-th approve call. */
	crash: { at: "message" | "approve"; n: number };
	/** Cut the newest file's last line at this fraction of its bytes. */
	tear: number | undefined;
	compaction: { every: number; mode: "summarize" | "discard" } | undefined;
	/** The model repeats call ids (as some servers do), so ids before the crash come back after it. */
	repeatIds: boolean;
	/** After the resume: a new Task, or `continueTask` when the crash cut one off. */
	follow: "run" | "continue";
}

const schedule: fc.Arbitrary<CrashSchedule> = fc.record({
	turns: fc.array(
		fc.record({
			text: fc.array(fc.constantFrom("a", "bc", "def "), { maxLength: 3 }),
			calls: fc.array(
				fc.record({
					readOnly: fc.boolean(),
					ticks: fc.nat({ max: 20 }),
					timer: fc.nat({ max: 9 }).map((n) => n < 2),
					allow: fc.nat({ max: 4 }).map((n) => n > 0),
				}),
				{ minLength: 1, maxLength: 4 },
			),
		}),
		{ minLength: 1, maxLength: 3 },
	),
	crash: fc.oneof(
		{ weight: 4, arbitrary: fc.record({ at: fc.constant("message" as const), n: fc.integer({ min: 1, max: 50 }) }) },
		{ weight: 1, arbitrary: fc.record({ at: fc.constant("approve" as const), n: fc.nat({ max: 3 }) }) },
	),
	tear: fc.option(fc.double({ min: 0, max: 0.99, noNaN: true }), { nil: undefined, freq: 3 }),
	compaction: fc.option(
		fc.record({
			every: fc.integer({ min: 1, max: 2 }),
			mode: fc.constantFrom("summarize" as const, "discard" as const),
		}),
		{ nil: undefined, freq: 3 },
	),
	repeatIds: fc.nat({ max: 3 }).map((n) => n === 0),
	follow: fc.constantFrom("run" as const, "continue" as const),
});

const hops = async (n: number) => {
	for (let i = 0; i < n; i++) await Promise.resolve();
};

function scriptFor(s: CrashSchedule): { steps: ScriptedStep[][]; plans: Map<string, CallPlan> } {
	const plans = new Map<string, CallPlan>();
	const steps = s.turns.map((turn, t) => {
		const out: ScriptedStep[] = [];
		if (turn.text.length > 0) out.push({ type: "text", text: turn.text.join(""), chunks: turn.text });
		turn.calls.forEach((plan, i) => {
			const callId = s.repeatIds ? `c${i % 2}` : `t${t}c${i}`;
			if (!plans.has(callId)) plans.set(callId, plan);
			out.push({ type: "tool_call", name: plan.readOnly ? "look" : "change", args: { id: callId }, callId });
		});
		out.push({ type: "usage", usage: { input: 10 + t, output: 3 } });
		return out;
	});
	steps.push([{ type: "text", text: "final answer", chunks: ["final ", "answer"] }]);
	return { steps, plans };
}

/** Where the crashes landed, so the note can say the schedules reach every phase. */
const phases = { streaming: 0, approval: 0, toolsRunning: 0, afterTheTask: 0, torn: 0, rotated: 0, continued: 0 };

function countPhase(seen: readonly OmniMessage[], inApprove: boolean, s: CrashSchedule): void {
	if (s.tear !== undefined) phases.torn++;
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

function expectSeqGrows(messages: readonly OmniMessage[]): void {
	messages.forEach((m, i) => {
		if (i > 0) expect(m.seq).toBeGreaterThan((messages[i - 1] as OmniMessage).seq);
	});
}

async function runSchedule(s: CrashSchedule): Promise<void> {
	const { steps, plans } = scriptFor(s);
	const executions = new Map<string, number>();
	let crashed = false;
	/** The tools of one process: the crashed one's runs count only until its crash. */
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
	const { session, model, home } = await harness(script, { tools: toolsOf(() => !crashed), settings });

	const controller = new AbortController();
	const seen: OmniMessage[] = [];
	let copy = "";
	let seqAtCrash = 0;
	let inApprove = false;
	const crash = () => {
		if (crashed) return;
		copy = crashCopy(home, session.id, s.tear);
		seqAtCrash = lastSeqOf(session);
		crashed = true;
		controller.abort();
	};
	let approvals = 0;
	for await (const m of session.run([userText("start")], {
		signal: controller.signal,
		approve: async (call) => {
			if (s.crash.at === "approve" && s.crash.n === approvals++) {
				inApprove = !crashed;
				crash();
			}
			const plan = plans.get(call.callId.replace(/_\d+$/, "")) as CallPlan;
			return plan.allow ? "allow" : "deny";
		},
	})) {
		if (crashed) continue;
		seen.push(m);
		if (s.crash.at === "message" && s.crash.n === seen.length) crash();
	}
	crash(); // The schedule's point was never reached: the crash comes after the Task.
	countPhase(seen, inApprove, s);
	await session.close();

	const resumed = await resumeCrashed(copy, session.id, model, { tools: toolsOf(() => true), settings });
	const requestsBefore = model.requests.length;
	const approve = async () => "allow" as const;
	const continued = s.follow === "continue" && resumed.unfinishedTask !== undefined;
	if (continued) phases.continued++;
	const follow = await collect(
		continued ? resumed.continueTask({ approve }) : resumed.run([userText("follow up")], { approve }),
	);
	await resumed.close();

	const done = follow.filter((m) => m.type === "done");
	expect(done).toHaveLength(1);
	expect(["model_stop", "loop_detected"]).toContain((follow.at(-1) as { reason: string }).reason);
	// Seq strictly increasing across the crash: above every number the crashed Session handed out.
	expectSeqGrows(seen);
	expectSeqGrows(follow);
	expect(follow[0]?.seq).toBeGreaterThan(seqAtCrash);
	// Every request the model received, before and after the crash, validly paired.
	for (const request of model.requests) expect(pairingProblems(request.messages)).toEqual([]);
	// A call the Trace shows had started, with no output, reaches the model as interrupted.
	const after = model.requests.slice(requestsBefore);
	for (const callId of startedWithoutOutput(copy, session.id)) {
		const outputs = after.flatMap((r) =>
			r.messages.filter((m) => m.type === "tool_call_output" && m.callId === callId),
		);
		for (const output of outputs)
			expect(output).toMatchObject({ status: "interrupted", output: CRASHED_WHILE_RUNNING });
		if (after[0]?.purpose === "turn") expect(outputs.length, callId).toBeGreaterThan(0);
	}
	// No call id executed twice: runs started before the crash instant plus runs after the resume.
	for (const [id, count] of executions) expect(count, id).toBe(1);
	// The Session's totals are the sum of the token_usage events in its Trace, as the disk holds it.
	expect(done[0]?.type === "done" && done[0].sessionUsage.total).toBe(tracedUsageTotal(copy, session.id));
}

describe("random schedules that crash keep DESIGN §3's guarantees across the resume", () => {
	afterEach(cleanup);

	it(`${RUNS} crashing schedules: no call id executed twice, seq strictly increasing across the crash, every request validly paired, usage equal to the sum of token_usage`, async () => {
		const started = performance.now();
		await fc.assert(
			fc.asyncProperty(schedule, async (s) => {
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
		console.log(
			`crash property: ${RUNS} schedules in ${seconds.toFixed(1)} s; crashes by phase: ${JSON.stringify(phases)}`,
		);
		expect(phases.streaming * phases.approval * phases.toolsRunning * phases.torn * phases.continued).toBeGreaterThan(
			0,
		);
	}, 300_000);
});

import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { type Tool, tool } from "../../src/tools/tool.js";
import { cleanup, harness, scriptByPurpose, tracedMessages } from "../harness.js";
import { pairingProblems } from "./pairing-checker.js";
import { scriptFor } from "./scripted-turns.js";

/**
 * Random schedules against the guarantees of docs/protocol.md §5.1: 1–6 tool calls a turn with random durations,
 * random denials, aborts at random points (streaming, approval, execution), random steering.
 */

const RUNS = Number(process.env.OMNILOOP_PROPERTY_RUNS ?? 1000);

interface CallPlan {
	readOnly: boolean;
	/** Work before the tool finishes: microtask hops, or a real timer when `timer` is set. */
	ticks: number;
	timer: boolean;
	allow: boolean;
	approveTicks: number;
}

interface Schedule {
	turns: { text: string[]; calls: CallPlan[]; gapTicks: number }[];
	/** When to abort: never, after n messages read, inside the n-th approve call, or at the n-th tool_start or output. */
	abort: { at: "never" | "message" | "approve" | "tool_start" | "tool_call_output"; n: number };
	/** Steer after reading these message counts. */
	steerAt: number[];
	/** A small max_turns, so the limit can land mid-Task. */
	maxTurns: number | undefined;
	/** The model repeats call ids (as some servers do), within and across turns. */
	repeatIds: boolean;
	/** Before the follow-up Task: one run whose signal has already fired. */
	preAbortedRun: boolean;
	/** Before the follow-up Task: close the Session and resume it from its Trace. */
	resume: boolean;
	/** Compact every N turns (maxSessionTurns), so aborts and steering also land around compactions. */
	compactEvery: number | undefined;
}

const callPlan = fc.record({
	readOnly: fc.boolean(),
	ticks: fc.nat({ max: 30 }),
	timer: fc.nat({ max: 99 }).map((n) => n < 15),
	allow: fc.boolean(),
	approveTicks: fc.nat({ max: 10 }),
});

const schedule: fc.Arbitrary<Schedule> = fc.record({
	turns: fc.array(
		fc.record({
			text: fc.array(fc.constantFrom("a", "bc", "def "), { maxLength: 3 }),
			calls: fc.array(callPlan, { minLength: 1, maxLength: 6 }),
			gapTicks: fc.nat({ max: 5 }),
		}),
		{ minLength: 1, maxLength: 3 },
	),
	abort: fc.oneof(
		fc.record({ at: fc.constant("never" as const), n: fc.constant(0) }),
		fc.record({ at: fc.constant("message" as const), n: fc.nat({ max: 60 }) }),
		fc.record({ at: fc.constant("approve" as const), n: fc.nat({ max: 3 }) }),
		fc.record({ at: fc.constant("tool_start" as const), n: fc.nat({ max: 4 }) }),
		fc.record({ at: fc.constant("tool_call_output" as const), n: fc.nat({ max: 4 }) }),
	),
	steerAt: fc.array(fc.nat({ max: 60 }), { maxLength: 3 }),
	maxTurns: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined, freq: 3 }),
	repeatIds: fc.nat({ max: 9 }).map((n) => n === 0),
	preAbortedRun: fc.nat({ max: 4 }).map((n) => n === 0),
	resume: fc.nat({ max: 4 }).map((n) => n === 0),
	compactEvery: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined, freq: 3 }),
});

const hops = async (n: number) => {
	for (let i = 0; i < n; i++) await Promise.resolve();
};

function checkGuarantees(out: OmniMessage[], aborted: boolean): void {
	// 5. After abort only done follows; exactly one done, last.
	expect(out.filter((m) => m.type === "done")).toHaveLength(1);
	expect(out.at(-1)?.type).toBe("done");
	const abortAt = out.findIndex((m) => m.type === "abort");
	if (abortAt !== -1) expect(abortAt).toBe(out.length - 2);
	if (!aborted) expect(abortAt).toBe(-1);

	// 1. Before each request_begin, every earlier tool_call has exactly one decision and one output,
	//    and decisions come in call order.
	const begins = out.flatMap((m, i) => (m.type === "request_begin" ? [i] : []));
	for (const b of begins) {
		const before = out.slice(0, b);
		for (const call of before.filter((m) => m.type === "tool_call")) {
			const id = (call as { callId: string }).callId;
			expect(before.filter((m) => m.type === "approval_decision" && m.callId === id)).toHaveLength(1);
			expect(before.filter((m) => m.type === "tool_call_output" && m.callId === id)).toHaveLength(1);
		}
	}
	const callOrder = out.flatMap((m) => (m.type === "tool_call" ? [m.callId] : []));
	const decisionOrder = out.flatMap((m) => (m.type === "approval_decision" ? [m.callId] : []));
	expect(decisionOrder).toEqual(callOrder.slice(0, decisionOrder.length));
	for (const id of new Set(callOrder)) {
		expect(out.filter((m) => m.type === "tool_call_output" && m.callId === id).length).toBeLessThanOrEqual(1);
	}

	// 2. token_usage then request_end close each request, aborted ones included.
	out.forEach((m, i) => {
		if (m.type === "request_end") expect(out[i - 1]?.type).toBe("token_usage");
	});
	expect(out.filter((m) => m.type === "request_end")).toHaveLength(begins.length);

	// seq grows by one.
	out.forEach((m, i) => {
		if (i > 0) expect(m.seq).toBe((out[i - 1] as OmniMessage).seq + 1);
	});
}

/** Where the aborts landed, so the note can say the schedules reach every phase. */
const abortPhases = { none: 0, streaming: 0, approval: 0, execution: 0 };

function countAbort(out: OmniMessage[], inApprove: boolean): void {
	const abort = out.find((m) => m.type === "abort");
	if (abort === undefined || abort.type !== "abort") abortPhases.none++;
	else if (inApprove) abortPhases.approval++;
	else if (abort.carryOver === "A") abortPhases.execution++;
	else abortPhases.streaming++;
}

async function runSchedule(s: Schedule): Promise<void> {
	const { steps, plans } = scriptFor(s);
	const executions = new Map<string, number>();
	const work = async (id: string, callId: string, signal: AbortSignal) => {
		executions.set(callId, (executions.get(callId) ?? 0) + 1);
		const plan = plans.get(id) as CallPlan;
		if (plan.timer) await new Promise((r) => setTimeout(r, plan.ticks % 3));
		else await hops(plan.ticks);
		if (signal.aborted) throw new Error("aborted");
		return `did ${id}`;
	};
	const tools: Tool[] = [
		tool({
			name: "look",
			description: "read-only",
			parameters: z.object({ id: z.string() }),
			readOnly: true,
			execute: ({ id }, ctx) => work(id, ctx.callId, ctx.signal),
		}),
		tool({
			name: "change",
			description: "writes",
			parameters: z.object({ id: z.string() }),
			execute: ({ id }, ctx) => work(id, ctx.callId, ctx.signal),
		}),
	];
	const settings = {
		...(s.maxTurns === undefined ? {} : { maxTurns: s.maxTurns }),
		...(s.compactEvery === undefined ? {} : { compaction: { maxSessionTurns: s.compactEvery } }),
	};
	// Compaction requests get summaries; turn requests play the schedule, then plain answers.
	const script = scriptByPurpose(
		[...steps, [{ type: "text", text: "anything else?" }]],
		[[{ type: "text", text: "[summary]s[/summary]" }]],
	);
	const { session: first, agent, model, home } = await harness(script, { tools, settings });
	let session = first;
	const controller = new AbortController();
	let approvals = 0;
	let abortedInApprove = false;
	const steered: string[] = [];
	const out: OmniMessage[] = [];
	const seen: Record<string, number> = {};
	for await (const m of session.run([userText("start")], {
		signal: controller.signal,
		approve: async (call) => {
			const plan = plans.get(call.callId) as CallPlan;
			if (s.abort.at === "approve" && s.abort.n === approvals) {
				abortedInApprove = true;
				controller.abort();
			}
			approvals++;
			await hops(plan.approveTicks);
			return plan.allow ? "allow" : "deny";
		},
	})) {
		out.push(m);
		if (s.abort.at === "message" && s.abort.n === out.length) controller.abort();
		if (m.type === s.abort.at) {
			seen[m.type] = (seen[m.type] ?? 0) + 1;
			if (seen[m.type] === s.abort.n + 1) controller.abort();
		}
		for (const at of s.steerAt) {
			if (at === out.length) {
				const text = `steer ${at}`;
				if (session.steer(text)) steered.push(text);
			}
		}
	}
	if (process.env.OMNILOOP_PROPERTY_EXAMPLE) console.log(out.map((m) => m.type).join(" "));
	checkGuarantees(out, controller.signal.aborted);
	// Repeated call ids with the same arguments can legitimately look like a loop to the detector.
	expect(["model_stop", "user_abort", "max_turns", "loop_detected"]).toContain(
		(out.at(-1) as { reason: string }).reason,
	);
	countAbort(out, abortedInApprove);

	if (s.preAbortedRun) {
		const aborted = new AbortController();
		aborted.abort();
		const none: OmniMessage[] = [];
		for await (const m of session.run([userText("never sent")], { signal: aborted.signal })) none.push(m);
		checkGuarantees(none, true);
	}
	if (s.resume) {
		session.close();
		session = await agent.resumeSession(session.id);
	}

	// A follow-up Task: carry-over, if any, must pair up in its request too.
	const follow: OmniMessage[] = [];
	for await (const m of session.run([userText("follow up")])) follow.push(m);
	checkGuarantees(follow, false);
	expect(["model_stop", "max_turns", "loop_detected"], JSON.stringify(follow.at(-1))).toContain(
		(follow.at(-1) as { reason: string }).reason,
	);

	// Pairing of every request the model received.
	for (const request of model.requests) expect(pairingProblems(request.messages)).toEqual([]);
	// 3. A tool call id is executed at most once.
	for (const [id, count] of executions) expect(count, id).toBe(1);
	// 4. Steering that was accepted reaches the model or the Trace.
	const sentTexts = new Set(
		model.requests.flatMap((r) => r.messages.flatMap((m) => (m.type === "user_text" ? [m.text] : []))),
	);
	const tracedTexts = new Set(
		tracedMessages(home, session.id).flatMap((m) => (m.type === "user_text" ? [m.text] : [])),
	);
	for (const text of steered) {
		const wrapped = `[user_steering]${text}[/user_steering]`;
		expect(sentTexts.has(wrapped) || tracedTexts.has(wrapped), text).toBe(true);
	}
	session.close();
}

describe("random schedules keep the guarantees of docs/protocol.md §5.1", () => {
	afterEach(cleanup);

	it(`${RUNS} schedules: pairing, one decision and one output per call, usage before request_end, at-most-once execution, steering delivered, only done after abort`, async () => {
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
				...(process.env.OMNILOOP_PROPERTY_EXAMPLE
					? { examples: [[JSON.parse(process.env.OMNILOOP_PROPERTY_EXAMPLE)]] }
					: {}),
			},
		);
		const seconds = (performance.now() - started) / 1000;
		console.log(
			`property: ${RUNS} schedules in ${seconds.toFixed(1)} s; aborts by phase: ${JSON.stringify(abortPhases)}`,
		);
		expect(abortPhases.streaming + abortPhases.approval + abortPhases.execution).toBeGreaterThan(0);
	}, 300_000);
});

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import type { ModelFailure } from "../../src/model/failure.js";
import { callTool, fail, type ScriptedStep, say } from "../../src/model/scripted.js";
import {
	cleanup,
	countedEcho,
	echoTool,
	harness,
	lastDone,
	ofType,
	pairingProblems,
	runText,
	shape,
} from "../harness.js";

afterEach(cleanup);

const blip: ModelFailure = { class: "timeout", message: "socket hang up" };
const failing = (failure: ModelFailure = blip): ScriptedStep[] => [fail(failure)];

/** Reads a run in the background, so the test can move the fake clock. */
function background(iterable: AsyncIterable<OmniMessage>, onMessage?: (m: OmniMessage) => void) {
	const seen: OmniMessage[] = [];
	const finished = (async () => {
		for await (const m of iterable) {
			seen.push(m);
			onMessage?.(m);
		}
	})();
	return { seen, finished };
}

describe("Automatic reconnect", () => {
	beforeEach(() => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
	});
	afterEach(() => {
		vi.useRealTimers();
		cleanup();
	});

	it("timeout failures reconnect up to 5 times; each failure's request_end announces retry_in_ms 250, 500, 1000, 2000, 4000", async () => {
		const { session, model } = await harness([failing(), failing(), failing(), failing(), failing(), [say("finally")]]);
		const { seen, finished } = background(session.run([userText("go")]));
		await vi.advanceTimersByTimeAsync(7_750);
		await finished;
		const ends = ofType(seen, "request_end");
		expect(ends.map((e) => [e.status, e.retry_in_ms, e.attempt])).toEqual([
			["timeout", 250, 1],
			["timeout", 500, 2],
			["timeout", 1000, 3],
			["timeout", 2000, 4],
			["timeout", 4000, 5],
			["ok", undefined, undefined],
		]);
		expect(ofType(seen, "request_begin").map((b) => [b.turn, b.attempt])).toEqual(
			[0, 1, 2, 3, 4, 5].map((a) => [1, a]),
		);
		expect(model.requests).toHaveLength(6);
		expect(lastDone(seen)?.reason).toBe("model_stop");
	});

	it("the wait is the planned one: the next attempt starts when retry_in_ms has passed, not before", async () => {
		const { session, model } = await harness([failing(), failing(), [say("ok")]]);
		const { finished } = background(session.run([userText("go")]));
		await vi.advanceTimersByTimeAsync(249);
		expect(model.requests).toHaveLength(1);
		await vi.advanceTimersByTimeAsync(1);
		expect(model.requests).toHaveLength(2);
		await vi.advanceTimersByTimeAsync(499);
		expect(model.requests).toHaveLength(2);
		await vi.advanceTimersByTimeAsync(1);
		await finished;
		expect(model.requests).toHaveLength(3);
	});

	it("beyond 5 reconnects the turn settles as failed and the Task ends with an error", async () => {
		const { session, model } = await harness(Array.from({ length: 7 }, () => failing()));
		const { seen, finished } = background(session.run([userText("go")]));
		await vi.advanceTimersByTimeAsync(10_000);
		await finished;
		expect(model.requests).toHaveLength(6);
		expect(ofType(seen, "request_end").at(-1)).toMatchObject({ status: "failed", error: { kind: "timeout" } });
		expect(ofType(seen, "request_end").at(-1)?.retry_in_ms).toBeUndefined();
		expect(lastDone(seen)).toMatchObject({ reason: "error", error: { kind: "timeout" } });
	});

	it("malformed streams (truncated, bad JSON) reconnect too", async () => {
		const { session, model } = await harness([
			failing({ class: "malformed", message: "stream ended without its finish" }),
			[say("ok")],
		]);
		const { seen, finished } = background(session.run([userText("go")]));
		await vi.advanceTimersByTimeAsync(250);
		await finished;
		expect(ofType(seen, "request_end")[0]).toMatchObject({ status: "malformed", retry_in_ms: 250, attempt: 1 });
		expect(model.requests).toHaveLength(2);
	});

	it("a stream that ends ok with a tool call still incomplete is truncated: malformed, and the retry names the cut-off call", async () => {
		const { session, model } = await harness([
			[say("Let me write it"), { type: "tool_call_deltas", name: "echo", callId: "c1", chunks: ['{"text":"hal'] }],
			[say("done")],
		]);
		const { seen, finished } = background(session.run([userText("go")]));
		await vi.advanceTimersByTimeAsync(250);
		await finished;
		expect(ofType(seen, "request_end")[0]).toMatchObject({ status: "malformed", retry_in_ms: 250, attempt: 1 });
		expect(lastDone(seen)?.reason).toBe("model_stop");
		const retried = model.requests[1]?.messages.at(-1);
		expect(retried?.type === "user_text" && retried.text).toContain("[turn_retried]");
		expect(retried?.type === "user_text" && retried.text).toContain('echo({"text":"hal…)');
	});

	it("retry-after is honoured, but capped at 30 s", async () => {
		const { session } = await harness([
			failing({ ...blip, status: 429, retryAfterMs: 2000 }),
			failing({ ...blip, status: 429, retryAfterMs: 120_000 }),
			[say("ok")],
		]);
		const { seen, finished } = background(session.run([userText("go")]));
		await vi.advanceTimersByTimeAsync(32_000);
		await finished;
		expect(ofType(seen, "request_end").map((e) => e.retry_in_ms)).toEqual([2000, 30_000, undefined]);
	});

	it("authentication errors never retry: request_end{status:auth} and done{error}", async () => {
		const { session, model } = await harness([
			failing({ class: "auth", message: "invalid key", status: 401 }),
			[say("never")],
		]);
		const { seen, finished } = background(session.run([userText("go")]));
		await finished;
		expect(ofType(seen, "request_end")).toMatchObject([{ status: "auth" }]);
		expect(lastDone(seen)).toMatchObject({ reason: "error", error: { kind: "auth", status: 401 } });
		expect(model.requests).toHaveLength(1);
	});

	it("fatal errors (a bad request) never retry", async () => {
		const { session, model } = await harness([
			failing({ class: "fatal", message: "bad request", status: 400 }),
			[say("x")],
		]);
		const { seen, finished } = background(session.run([userText("go")]));
		await finished;
		expect(ofType(seen, "request_end")).toMatchObject([{ status: "failed" }]);
		expect(model.requests).toHaveLength(1);
	});

	it("skipReconnectWait ends the current wait at once and leaves the attempt counter unchanged", async () => {
		const { session, model } = await harness([failing(), failing(), [say("ok")]]);
		let skipped = false;
		const answers: boolean[] = [session.skipReconnectWait()];
		const { seen, finished } = background(session.run([userText("go")]), (m) => {
			if (m.type === "request_end" && m.attempt === 1 && !skipped) {
				skipped = true;
				// A second skip right after cuts nothing more.
				queueMicrotask(() => answers.push(session.skipReconnectWait(), session.skipReconnectWait()));
			}
		});
		await vi.advanceTimersByTimeAsync(0);
		expect(model.requests).toHaveLength(2); // no time passed: the 250 ms wait was skipped
		await vi.advanceTimersByTimeAsync(500);
		await finished;
		expect(ofType(seen, "request_end").map((e) => [e.attempt, e.retry_in_ms])).toEqual([
			[1, 250],
			[2, 500],
			[undefined, undefined],
		]);
		// True only for the call that cut a wait short: none ran before the Task, or after it.
		answers.push(session.skipReconnectWait());
		expect(answers).toEqual([false, true, false, false]);
	});

	it("an abort during the wait ends the Task (done{user_abort}) without another attempt", async () => {
		const { session, model } = await harness([failing(), [say("never")]]);
		const controller = new AbortController();
		const { seen, finished } = background(session.run([userText("go")], { signal: controller.signal }));
		await vi.advanceTimersByTimeAsync(100);
		controller.abort();
		await finished;
		expect(model.requests).toHaveLength(1);
		expect(seen.map((m) => m.type).slice(-2)).toEqual(["abort", "done"]);
		expect(lastDone(seen)?.reason).toBe("user_abort");
	});

	it("the retry re-sends the original input plus a [turn_retried] block with the partial output; tools already started are never run again", async () => {
		const runs: string[] = [];
		const counted = countedEcho(runs);
		const { session, model } = await harness(
			[
				[
					say("I will check."),
					callTool("echo", { text: "a" }, "c1"),
					{ type: "text_deltas", chunks: ["And then I"] },
					fail(blip),
				],
				[say(" continue from here.")],
				[say("done")],
			],
			{ tools: [counted] },
		);
		const { seen, finished } = background(session.run([userText("go")], { thinkingLevel: "low" }));
		await vi.advanceTimersByTimeAsync(250);
		await finished;
		const [first, retry] = model.requests;
		expect(retry?.messages.slice(0, -1)).toEqual(first?.messages);
		const block = retry?.messages.at(-1);
		expect(block?.type).toBe("user_text");
		const text = (block as { text: string }).text;
		expect(text).toMatch(/^\[turn_retried\][\s\S]*\[\/turn_retried\]$/);
		expect(text).toContain("I will check.");
		expect(text).toContain("And then I");
		expect(text).toContain('echo({"text":"a"}) [call c1]');
		// The thinking level is carried through the reconnect.
		expect(model.requests.map((r) => r.thinkingLevel)).toEqual(["low", "low", "low"]);
		expect(runs).toEqual(["c1"]);
		// The block was for that request only; the context keeps both attempts' complete messages and the output.
		expect(shape(model.requests[2]?.messages ?? [])).toEqual([
			"user:go",
			"assistant:I will check.",
			"call:c1",
			"assistant: continue from here.",
			"out:c1:ok",
		]);
		expect(lastDone(seen)?.reason).toBe("model_stop");
	});

	it("the counter never resets within a turn, and starts again for the next turn", async () => {
		const { session } = await harness(
			[failing(), [callTool("echo", { text: "a" }, "c1")], failing(), failing(), [say("ok")]],
			{ tools: [echoTool()] },
		);
		const { seen, finished } = background(session.run([userText("go")]));
		await vi.advanceTimersByTimeAsync(2_000);
		await finished;
		expect(ofType(seen, "request_begin").map((b) => [b.turn, b.attempt])).toEqual([
			[1, 0],
			[1, 1],
			[2, 0],
			[2, 1],
			[2, 2],
		]);
		expect(ofType(seen, "request_end").map((e) => e.retry_in_ms)).toEqual([250, undefined, 250, 500, undefined]);
	});

	it("a stream that stalls is a timeout: no event within the idle limit ends the attempt and the engine reconnects", async () => {
		const { session, model } = await harness([[say("partial"), { type: "stall" }], [say("ok")]], {
			settings: { timeouts: { idleMs: 5_000 } },
		});
		const { seen, finished } = background(session.run([userText("go")]));
		await vi.advanceTimersByTimeAsync(4_999);
		expect(ofType(seen, "request_end")).toHaveLength(0);
		await vi.advanceTimersByTimeAsync(1);
		await vi.advanceTimersByTimeAsync(250);
		await finished;
		expect(ofType(seen, "request_end")[0]).toMatchObject({
			status: "timeout",
			retry_in_ms: 250,
			error: { message: "the stream stalled: no event for 5000 ms" },
		});
		expect(model.requests).toHaveLength(2);
	});

	it("no first byte within its limit is a timeout too", async () => {
		const { session } = await harness([[{ type: "stall" }], [say("ok")]], {
			settings: { timeouts: { firstByteMs: 3_000 } },
		});
		const { seen, finished } = background(session.run([userText("go")]));
		await vi.advanceTimersByTimeAsync(3_250);
		await finished;
		expect(ofType(seen, "request_end")[0]).toMatchObject({
			status: "timeout",
			error: { message: "no first byte within 3000 ms" },
		});
	});
});

/** Reconnects after 1 ms, so the tests below need no fake clock. */
const instantReconnect = { reconnect: { baseMs: 1 } };

describe("reconnect never re-runs a call", () => {
	it("when the response to a reconnect streams again a call the failed attempt already started (same call id in the same turn), it is that call: not executed a second time", async () => {
		const runs: string[] = [];
		const { session, model } = await harness(
			[
				[callTool("echo", { text: "a" }, "c1"), fail(blip)],
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

	it("the reconnect's response streaming the same call with other spacing or key order is still that call", async () => {
		const runs: string[] = [];
		const { session } = await harness(
			[
				[callTool("echo", '{"text":"a","n":1}', "c1"), fail(blip)],
				[callTool("echo", '{ "n": 1, "text": "a" }', "c1"), say("done")],
				[say("ok")],
			],
			{ tools: [countedEcho(runs)], settings: instantReconnect },
		);
		await runText(session, "go");
		expect(runs).toEqual(["c1"]);
	});

	it("a different call under the same id in the reconnect's response (ids numbered per response) is new: it runs, under a fresh id", async () => {
		const runs: string[] = [];
		const { session, model } = await harness(
			[
				[callTool("echo", { text: "a" }, "c1"), fail(blip)],
				[callTool("echo", { text: "b" }, "c1"), say("done")],
				[say("ok")],
			],
			{ tools: [countedEcho(runs)], settings: instantReconnect },
		);
		const out = await runText(session, "go");
		expect(runs.sort()).toEqual(["c1", "c1_2"]);
		expect(ofType(out, "tool_call").map((c) => [c.callId, c.arguments])).toEqual([
			["c1", '{"text":"a"}'],
			["c1_2", '{"text":"b"}'],
		]);
		const last = model.requests.at(-1)?.messages ?? [];
		expect(pairingProblems(last)).toEqual([]);
		expect(shape(last)).toEqual(["user:go", "call:c1", "call:c1_2", "assistant:done", "out:c1:ok", "out:c1_2:ok"]);
	});

	it("attempts that give one id to different calls: a call made by any earlier attempt is not run again", async () => {
		const runs: string[] = [];
		const { session } = await harness(
			[
				[callTool("echo", { text: "a" }, "c0"), fail(blip)],
				[callTool("echo", { text: "b" }, "c0"), fail(blip)],
				[callTool("echo", { text: "a" }, "c0"), say("done")],
				[say("ok")],
			],
			{ tools: [countedEcho(runs)], settings: instantReconnect },
		);
		await runText(session, "go");
		expect(runs.sort()).toEqual(["c0", "c0_2"]);
	});

	it("a new call in the reconnect's response still runs", async () => {
		const runs: string[] = [];
		const { session } = await harness(
			[[callTool("echo", { text: "a" }, "c1"), fail(blip)], [callTool("echo", { text: "b" }, "c2")], [say("ok")]],
			{ tools: [countedEcho(runs)], settings: instantReconnect },
		);
		await runText(session, "go");
		expect(runs.sort()).toEqual(["c1", "c2"]);
	});
});

describe("reconnect input", () => {
	it("when nothing had streamed before a failure, the reconnect re-sends the original input plus a [turn_retried] block saying so", async () => {
		const { session, model } = await harness([[fail(blip)], [say("ok")]], { settings: instantReconnect });
		await runText(session, "go");
		expect(model.requests).toHaveLength(2);
		const [first, second] = [model.requests[0]?.messages ?? [], model.requests[1]?.messages ?? []];
		// The original input unchanged (its prefix keeps the provider's prompt cache), then the block.
		expect(second.slice(0, -1)).toEqual(first);
		const block = second.at(-1);
		expect(block?.type === "user_text" && block.text).toMatch(
			/^\[turn_retried\][\s\S]*reconnect 1[\s\S]*Nothing of the response had arrived[\s\S]*\[\/turn_retried\]$/,
		);
	});

	it("with partial output, the reconnect sends the [turn_retried] block carrying it", async () => {
		const { session, model } = await harness(
			[[{ type: "text_deltas", chunks: ["half an ans"] }, fail(blip)], [say("ok")]],
			{
				settings: instantReconnect,
			},
		);
		await runText(session, "go");
		const retried = model.requests[1]?.messages.at(-1);
		expect(retried?.type === "user_text" && retried.text).toMatch(/^\[turn_retried\][\s\S]*half an ans/);
	});
});

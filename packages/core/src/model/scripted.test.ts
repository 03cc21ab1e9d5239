import { afterEach, describe, expect, it, vi } from "vitest";
import { userText } from "../messages/constructors.js";
import { ModelError, type ModelFailure } from "./failure.js";
import { createGate } from "./gate.js";
import type { ModelEvent, ModelRequest } from "./model-adapter.js";
import { callTool, fail, holdAt, reportUsage, ScriptedModel, say, think, wait } from "./scripted.js";

const request = (text = "hi"): ModelRequest => ({ messages: [userText(text)], tools: [], purpose: "turn" });

async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
	const events: ModelEvent[] = [];
	for await (const event of stream) events.push(event);
	return events;
}

describe("scripted model", () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	it("plays text and reasoning deltas, then the complete items, then usage and an ok outcome", async () => {
		const model = new ScriptedModel([
			[think("hmm"), say("Hello world", ["Hello", " world"]), reportUsage({ input: 3, output: 2 })],
		]);
		const events = await collect(model.streamGenerate(request(), new AbortController().signal));
		expect(events).toEqual([
			{ type: "reasoning_delta", delta: "hmm" },
			{ type: "reasoning", text: "hmm" },
			{ type: "text_delta", delta: "Hello" },
			{ type: "text_delta", delta: " world" },
			{ type: "text", text: "Hello world" },
			{ type: "usage", usage: { input: 3, output: 2, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 5 } },
			{ type: "outcome", outcome: { status: "ok", finishReason: "stop" } },
		]);
	});

	it("plays tool calls with their argument deltas and finishes with tool_calls", async () => {
		const model = new ScriptedModel([[callTool("read_file", { path: "a.txt" }, "c1")]]);
		const events = await collect(model.streamGenerate(request(), new AbortController().signal));
		expect(events).toEqual([
			{ type: "tool_call_delta", callId: "c1", name: "read_file", delta: '{"path":"a.txt"}' },
			{ type: "tool_call", callId: "c1", name: "read_file", arguments: '{"path":"a.txt"}' },
			{ type: "outcome", outcome: { status: "ok", finishReason: "tool_calls" } },
		]);
	});

	it("records every request it receives, copied at receipt", async () => {
		const model = new ScriptedModel([[say("a")], (req) => [say(`you said ${req.messages.length} things`)]]);
		const first = request("one");
		await collect(model.streamGenerate(first, new AbortController().signal));
		const events = await collect(
			model.streamGenerate({ ...first, messages: [...first.messages, userText("two")] }, new AbortController().signal),
		);
		expect(model.requests.map((r) => r.messages.length)).toEqual([1, 2]);
		expect(events).toContainEqual({ type: "text", text: "you said 2 things" });
	});

	it("fails a request past the end of its script", async () => {
		const model = new ScriptedModel([]);
		const events = await collect(model.streamGenerate(request(), new AbortController().signal));
		expect(events.at(-1)).toMatchObject({ type: "outcome", outcome: { status: "error", failure: { class: "fatal" } } });
	});

	const failures: ModelFailure[] = [
		{ class: "auth", message: "invalid api key", status: 401 },
		{ class: "timeout", message: "overloaded", status: 529, retryAfterMs: 2000 },
		{ class: "malformed", message: "stream ended without a finish" },
		{ class: "fatal", message: "bad request", status: 400 },
	];

	for (const failure of failures) {
		it(`ends a turn with a ${failure.class} failure as an error outcome, after the partial output`, async () => {
			const model = new ScriptedModel([[say("partial"), fail(failure)]]);
			const events = await collect(model.streamGenerate(request(), new AbortController().signal));
			expect(events[0]).toEqual({ type: "text_delta", delta: "partial" });
			expect(events.at(-1)).toEqual({ type: "outcome", outcome: { status: "error", failure } });
		});

		it(`throws a ${failure.class} failure from the call itself, as a provider's thrown error does`, () => {
			const model = new ScriptedModel([[fail(failure, "throw")]]);
			expect(() => model.streamGenerate(request(), new AbortController().signal)).toThrow(ModelError);
			try {
				model.streamGenerate(request(), new AbortController().signal);
			} catch (error) {
				expect((error as ModelError).failure).toEqual(failure);
			}
		});

		it(`rejects the stream mid-way with a ${failure.class} failure, as a broken stream does`, async () => {
			const model = new ScriptedModel([[say("x"), fail(failure, "reject")]]);
			const error = await collect(model.streamGenerate(request(), new AbortController().signal)).catch(
				(e: unknown) => e,
			);
			expect(error).toBeInstanceOf(ModelError);
			expect((error as ModelError).failure.class).toBe(failure.class);
		});
	}

	it("holds at a gate until the test releases it", async () => {
		const gate = createGate();
		const model = new ScriptedModel([[say("before"), holdAt(gate), say("after")]]);
		const seen: ModelEvent[] = [];
		const done = (async () => {
			for await (const event of model.streamGenerate(request(), new AbortController().signal)) seen.push(event);
		})();
		await gate.reached;
		expect(seen.map((e) => e.type)).toEqual(["text_delta", "text"]);
		gate.release();
		await done;
		expect(seen.some((e) => e.type === "text" && e.text === "after")).toBe(true);
	});

	it("waits its delays on the clock, so fake timers control them", async () => {
		vi.useFakeTimers();
		const model = new ScriptedModel([[wait(5000), say("late")]]);
		const seen: ModelEvent[] = [];
		const done = (async () => {
			for await (const event of model.streamGenerate(request(), new AbortController().signal)) seen.push(event);
		})();
		await vi.advanceTimersByTimeAsync(4999);
		expect(seen).toEqual([]);
		await vi.advanceTimersByTimeAsync(1);
		await done;
		expect(seen.map((e) => e.type)).toEqual(["text_delta", "text", "outcome"]);
	});

	it("ends promptly with an aborted outcome when the signal fires mid-turn", async () => {
		const gate = createGate();
		const controller = new AbortController();
		const model = new ScriptedModel([[say("a"), holdAt(gate), say("never")]]);
		const pending = collect(model.streamGenerate(request(), controller.signal));
		await gate.reached;
		controller.abort();
		const events = await pending;
		expect(events.at(-1)).toEqual({ type: "outcome", outcome: { status: "aborted" } });
		expect(events.some((e) => e.type === "text" && e.text === "never")).toBe(false);
	});
});

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { userText } from "../messages/constructors.js";
import type { ModelEvent, ModelRequest } from "./model-adapter.js";
import { ScriptedModel, say, wait } from "./scripted.js";
import { TimedModel } from "./timeouts.js";

const request: ModelRequest = { messages: [userText("hi")], tools: [], purpose: "turn" };

function read(model: TimedModel) {
	const events: ModelEvent[] = [];
	const done = (async () => {
		for await (const event of model.streamGenerate(request, new AbortController().signal)) events.push(event);
	})();
	return { events, done };
}

describe("stream time limits", () => {
	beforeEach(() => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
	});
	afterEach(() => {
		vi.useRealTimers();
	});

	it("a request that takes longer than its whole-request limit is a timeout, even while events keep coming", async () => {
		const steady = Array.from({ length: 20 }, (_, i) => [wait(100), say(`${i}`)]).flat();
		const model = new TimedModel(new ScriptedModel([steady]), { firstByteMs: 1000, idleMs: 1000, requestMs: 1050 });
		const { events, done } = read(model);
		await vi.advanceTimersByTimeAsync(1050);
		await done;
		expect(events.at(-1)).toEqual({
			type: "outcome",
			outcome: { status: "error", failure: { class: "timeout", message: "the request took longer than 1050 ms" } },
		});
		expect(events.filter((e) => e.type === "text").length).toBe(10);
	});

	it("events that keep arriving within the idle limit never time out", async () => {
		const steady = Array.from({ length: 10 }, (_, i) => [wait(900), say(`${i}`)]).flat();
		const model = new TimedModel(new ScriptedModel([steady]), { firstByteMs: 1000, idleMs: 1000, requestMs: 60_000 });
		const { events, done } = read(model);
		await vi.advanceTimersByTimeAsync(9_000);
		await done;
		expect(events.at(-1)).toEqual({ type: "outcome", outcome: { status: "ok", finishReason: "stop" } });
	});

	it("leaves no timer behind once the stream has ended", async () => {
		const model = new TimedModel(new ScriptedModel([[say("quick")]]), {
			firstByteMs: 1000,
			idleMs: 1000,
			requestMs: 5000,
		});
		await read(model).done;
		expect(vi.getTimerCount()).toBe(0);
	});
});

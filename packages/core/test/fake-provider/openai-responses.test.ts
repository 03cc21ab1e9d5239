import { createOpenAI } from "@ai-sdk/openai";
import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import type { FakeProviderServer } from "../../src/testing.js";
import { fakeProviderPerTest } from "./per-test.js";
import { doStreamError, streamOf } from "./sdk.js";

let server: FakeProviderServer;
fakeProviderPerTest((started) => {
	server = started;
});

const responses = () => createOpenAI({ baseURL: `${server.url}/v1`, apiKey: "k" }).responses("gpt-x");

/** The SSE events of the last response, as `[event name, payload]`. */
async function rawEvents(body: unknown): Promise<[string, Record<string, unknown>][]> {
	const response = await fetch(`${server.url}/v1/responses`, { method: "POST", body: JSON.stringify(body) });
	const text = await response.text();
	return text
		.split("\n\n")
		.filter((block) => block !== "")
		.map((block) => {
			const [eventLine, dataLine] = block.split("\n");
			return [eventLine?.replace("event: ", "") ?? "", JSON.parse(dataLine?.replace("data: ", "") ?? "")];
		});
}

describe("OpenAI Responses through @ai-sdk/openai", () => {
	it("streams reasoning summary, text, usage and the stop finish", async () => {
		server.enqueue({
			reasoning: ["Think", "ing."],
			text: ["Hi", " there"],
			usage: { input: 30, output: 12, cacheRead: 5, reasoning: 4 },
		});
		const result = await streamOf(responses());

		expect(result.reasoningDeltas).toEqual(["Think", "ing."]);
		expect(result.textDeltas).toEqual(["Hi", " there"]);
		expect(result.errors).toEqual([]);
		expect(result.finish?.finishReason.unified).toBe("stop");
		expect(result.finish?.usage.inputTokens).toEqual({ total: 30, noCache: 25, cacheRead: 5, cacheWrite: undefined });
		expect(result.finish?.usage.outputTokens).toEqual({ total: 12, text: 8, reasoning: 4 });
		expect(server.requests[0]).toMatchObject({ api: "openai-responses", path: "/v1/responses" });
		expect(server.requests[0]?.body).toMatchObject({ model: "gpt-x", stream: true });
	});

	it("streams function calls by call_id with argument deltas and a tool-calls finish", async () => {
		server.enqueue({
			toolCalls: [
				{ id: "call_abc", name: "weather", arguments: { city: "Rome" }, chunks: 5 },
				{ name: "clock", arguments: {} },
			],
		});
		const result = await streamOf(responses());

		expect(result.toolCalls).toEqual([
			{ id: "call_abc", name: "weather", input: '{"city":"Rome"}' },
			{ id: expect.stringMatching(/^call_/), name: "clock", input: "{}" },
		]);
		expect(result.parts.filter((part) => part.type === "tool-input-delta" && part.id === "call_abc")).toHaveLength(5);
		expect(result.finish?.finishReason.unified).toBe("tool-calls");
	});

	it("numbers events like the real API and names each after its type", async () => {
		server.enqueue({ reasoning: "r", text: "t", toolCalls: [{ name: "clock", arguments: "{}" }] });
		const events = await rawEvents({ model: "gpt-x", input: [], include: ["reasoning.encrypted_content"] });

		expect(events.map(([name]) => name)).toEqual([
			"response.created",
			"response.in_progress",
			"response.output_item.added",
			"response.reasoning_summary_part.added",
			"response.reasoning_summary_text.delta",
			"response.reasoning_summary_text.done",
			"response.reasoning_summary_part.done",
			"response.output_item.done",
			"response.output_item.added",
			"response.content_part.added",
			"response.output_text.delta",
			"response.output_text.done",
			"response.content_part.done",
			"response.output_item.done",
			"response.output_item.added",
			"response.function_call_arguments.delta",
			"response.function_call_arguments.done",
			"response.output_item.done",
			"response.completed",
		]);
		events.forEach(([name, payload], index) => {
			expect(payload.type).toBe(name);
			expect(payload.sequence_number).toBe(index);
		});
		const outputIndexes = events.filter(([, payload]) => "output_index" in payload).map(([, p]) => p.output_index);
		expect(new Set(outputIndexes)).toEqual(new Set([0, 1, 2]));
		const reasoningItem = events[2]?.[1].item as Record<string, unknown>;
		expect(reasoningItem).toMatchObject({ type: "reasoning", summary: [] });
		expect(typeof reasoningItem.encrypted_content).toBe("string");
		const completed = events.at(-1)?.[1].response as Record<string, unknown>;
		expect(completed).toMatchObject({ status: "completed", model: "gpt-x" });
		expect(completed.output).toHaveLength(3);
	});

	it("surfaces status faults as APICallError with retry-after", async () => {
		server.enqueue(
			{ fault: { kind: "status", status: 429, retryAfterSeconds: 3 } },
			{ fault: { kind: "status", status: 403 } },
			{ fault: { kind: "status", status: 503 } },
		);
		const limited = await doStreamError(responses());
		expect(APICallError.isInstance(limited)).toBe(true);
		expect(limited).toMatchObject({ statusCode: 429, isRetryable: true });
		expect((limited as APICallError).responseHeaders?.["retry-after"]).toBe("3");
		expect((limited as APICallError).data).toMatchObject({ error: { code: "rate_limit_exceeded" } });
		expect(await doStreamError(responses())).toMatchObject({ statusCode: 403, isRetryable: false });
		expect(await doStreamError(responses())).toMatchObject({ statusCode: 503, isRetryable: true });
	});

	it("an in-stream error before any output rejects doStream, as with the recorded quota failure", async () => {
		server.enqueue({ text: "never", fault: { kind: "stream-error", afterEvents: 2, code: "insufficient_quota" } });
		const error = await doStreamError(responses());
		expect(APICallError.isInstance(error)).toBe(true);
		expect(error).toMatchObject({ statusCode: 429, isRetryable: false });
		expect((error as APICallError).message).toMatch(/exceeded your current quota/);
	});

	it("an in-stream error after output becomes error parts and an error finish", async () => {
		server.enqueue({ text: ["one", "two"], fault: { kind: "stream-error", afterEvents: 5, message: "went wrong" } });
		const result = await streamOf(responses());
		expect(result.text).toBe("one");
		expect(result.errors.length).toBeGreaterThan(0);
		expect(JSON.stringify(result.errors[0])).toMatch(/went wrong/);
		expect(result.finish?.finishReason.unified).toBe("error");
	});

	it("a drop rejects the stream read", async () => {
		server.enqueue({ text: ["one", "two"], fault: { kind: "drop", afterEvents: 5 } });
		const result = await streamOf(responses());
		expect(result.text).toBe("one");
		expect(result.finish).toBeUndefined();
		// undici's "terminated" (socket closed) wrapped by the SDK, retryable.
		expect(APICallError.isInstance(result.thrown)).toBe(true);
		expect(result.thrown).toMatchObject({ isRetryable: true, cause: { message: "terminated" } });
	});

	it("malformed JSON becomes an error part", async () => {
		server.enqueue({ text: ["one", "two"], fault: { kind: "malformed", afterEvents: 5 } });
		const result = await streamOf(responses());
		expect(result.text).toBe("one");
		expect((result.errors[0] as Error).name).toBe("AI_JSONParseError");
		expect(result.finish?.finishReason.unified).toBe("error");
	});

	it("no-finish leaves out response.completed: no usage, finish 'other'", async () => {
		server.enqueue({ text: "cut", fault: { kind: "no-finish" } });
		const result = await streamOf(responses());
		expect(result.text).toBe("cut");
		expect(result.thrown).toBeUndefined();
		expect(result.finish?.finishReason.unified).toBe("other");
		expect(result.finish?.usage.inputTokens.total).toBeUndefined();
	});

	it("a stall keeps the stream open until the client aborts", async () => {
		server.enqueue({ text: ["one", "two"], fault: { kind: "stall", afterEvents: 5 } });
		const result = await streamOf(responses(), { abortSignal: AbortSignal.timeout(150) });
		expect(result.text).toBe("one");
		expect(result.thrown).toBeDefined();
	});
});

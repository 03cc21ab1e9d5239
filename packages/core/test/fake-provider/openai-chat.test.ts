import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import type { FakeProviderServer } from "../../src/testing.js";
import { fakeProviderPerTest } from "./per-test.js";
import { doStreamError, streamOf } from "./sdk.js";

let server: FakeProviderServer;
fakeProviderPerTest((started) => {
	server = started;
});

const openaiChat = () => createOpenAI({ baseURL: `${server.url}/v1`, apiKey: "k" }).chat("gpt-x");
const compatible = (includeUsage = true) =>
	createOpenAICompatible({ name: "x", baseURL: `${server.url}/v1`, apiKey: "k", includeUsage }).chatModel("m");

describe("OpenAI Chat Completions through @ai-sdk/openai", () => {
	it("streams text deltas, usage and the stop finish", async () => {
		server.enqueue({ text: ["Hel", "lo", " there"], usage: { input: 20, output: 7, cacheRead: 4, reasoning: 2 } });
		const result = await streamOf(openaiChat());

		// The role chunk's `content: ""` is an empty delta, as with the real API.
		expect(result.textDeltas.filter((delta) => delta !== "")).toEqual(["Hel", "lo", " there"]);
		expect(result.text).toBe("Hello there");
		expect(result.errors).toEqual([]);
		expect(result.finish?.finishReason).toEqual({ unified: "stop", raw: "stop" });
		expect(result.finish?.usage.inputTokens).toEqual({ total: 20, noCache: 16, cacheRead: 4, cacheWrite: undefined });
		expect(result.finish?.usage.outputTokens).toEqual({ total: 7, text: 5, reasoning: 2 });

		const [request] = server.requests;
		expect(request?.api).toBe("openai-chat");
		expect(request?.path).toBe("/v1/chat/completions");
		expect(request?.headers.authorization).toBe("Bearer k");
		expect(request?.body).toMatchObject({ model: "gpt-x", stream: true, stream_options: { include_usage: true } });
		expect(JSON.parse(request?.rawBody ?? "")).toEqual(request?.body);
	});

	it("streams tool calls with ids, names and fragmented arguments", async () => {
		server.enqueue({
			text: "Checking.",
			toolCalls: [
				{ id: "call_weather", name: "weather", arguments: { city: "Paris" }, chunks: 4 },
				{ name: "clock", arguments: "{}" },
			],
		});
		const result = await streamOf(openaiChat());

		expect(result.text).toBe("Checking.");
		expect(result.toolCalls).toEqual([
			{ id: "call_weather", name: "weather", input: '{"city":"Paris"}' },
			{ id: expect.stringMatching(/^call_/), name: "clock", input: "{}" },
		]);
		const argumentDeltas = result.parts.filter(
			(part) => part.type === "tool-input-delta" && part.id === "call_weather",
		);
		expect(argumentDeltas).toHaveLength(4);
		expect(result.finish?.finishReason).toEqual({ unified: "tool-calls", raw: "tool_calls" });
	});

	it("surfaces status faults as APICallError in OpenAI's error shape", async () => {
		server.enqueue(
			{ fault: { kind: "status", status: 401 } },
			{ fault: { kind: "status", status: 429, retryAfterSeconds: 7 } },
			{ fault: { kind: "status", status: 500 } },
			{ fault: { kind: "status", status: 400, code: "context_length_exceeded", message: "too long" } },
		);

		const unauthorized = await doStreamError(openaiChat());
		expect(APICallError.isInstance(unauthorized)).toBe(true);
		expect(unauthorized).toMatchObject({ statusCode: 401, isRetryable: false });
		expect((unauthorized as APICallError).message).toMatch(/Incorrect API key/);

		const limited = await doStreamError(openaiChat());
		expect(limited).toMatchObject({ statusCode: 429, isRetryable: true });
		expect((limited as APICallError).responseHeaders?.["retry-after"]).toBe("7");

		expect(await doStreamError(openaiChat())).toMatchObject({ statusCode: 500, isRetryable: true });

		const tooLong = await doStreamError(openaiChat());
		expect(tooLong).toMatchObject({ statusCode: 400, message: "too long" });
		expect(JSON.parse((tooLong as APICallError).responseBody ?? "")).toEqual({
			error: { message: "too long", type: "invalid_request_error", param: null, code: "context_length_exceeded" },
		});
	});

	it("a drop mid-stream rejects the stream read after the events that came through", async () => {
		server.enqueue({ text: ["one", "two", "three"], fault: { kind: "drop", afterEvents: 2 } });
		const result = await streamOf(openaiChat());
		expect(result.text).toBe("one");
		expect(result.finish).toBeUndefined();
		// undici's "terminated" (socket closed) wrapped by the SDK, retryable.
		expect(APICallError.isInstance(result.thrown)).toBe(true);
		expect(result.thrown).toMatchObject({ isRetryable: true, cause: { message: "terminated" } });
	});

	it("malformed JSON becomes an error part and an error finish", async () => {
		server.enqueue({ text: ["one", "two"], fault: { kind: "malformed", afterEvents: 2 } });
		const result = await streamOf(openaiChat());
		expect(result.text).toBe("one");
		expect(result.errors).toHaveLength(1);
		expect((result.errors[0] as Error).name).toBe("AI_JSONParseError");
		expect(result.finish?.finishReason.unified).toBe("error");
	});

	it("an in-stream error chunk after output becomes an error part", async () => {
		server.enqueue({ text: ["one", "two"], fault: { kind: "stream-error", afterEvents: 2, message: "boom" } });
		const result = await streamOf(openaiChat());
		expect(result.text).toBe("one");
		expect(result.errors).toEqual([{ message: "boom", type: "server_error", param: null, code: null }]);
		expect(result.finish?.finishReason.unified).toBe("error");
	});

	it("an in-stream error chunk before any output rejects doStream", async () => {
		server.enqueue({ text: "never", fault: { kind: "stream-error", afterEvents: 1, code: "insufficient_quota" } });
		const error = await doStreamError(openaiChat());
		expect(error).toMatchObject({ statusCode: 429, isRetryable: false });
	});

	it("no-finish ends cleanly without finish reason or usage", async () => {
		server.enqueue({ text: "cut", fault: { kind: "no-finish" } });
		const result = await streamOf(openaiChat());
		expect(result.text).toBe("cut");
		expect(result.thrown).toBeUndefined();
		expect(result.finish?.finishReason).toEqual({ unified: "other", raw: undefined });
		expect(result.finish?.usage.inputTokens.total).toBeUndefined();
	});

	it("a stall keeps the stream open until the client aborts", async () => {
		server.enqueue({ text: ["one", "two"], fault: { kind: "stall", afterEvents: 2 } });
		const result = await streamOf(openaiChat(), { abortSignal: AbortSignal.timeout(150) });
		expect(result.text).toBe("one");
		expect(result.finish).toBeUndefined();
		expect((result.thrown as Error).name).toMatch(/Abort|Timeout/);
	});
});

describe("OpenAI-compatible Chat Completions through @ai-sdk/openai-compatible", () => {
	it("streams reasoning_content, text, tool calls and usage", async () => {
		server.enqueue({
			reasoning: ["Let me", " think."],
			text: "Done.",
			toolCalls: [{ id: "call_1", name: "weather", arguments: '{"city":"Oslo"}', chunks: 3 }],
			usage: { input: 50, output: 30, cacheRead: 10, reasoning: 12 },
		});
		const result = await streamOf(compatible());

		expect(result.reasoningDeltas).toEqual(["Let me", " think."]);
		expect(result.text).toBe("Done.");
		expect(result.toolCalls).toEqual([{ id: "call_1", name: "weather", input: '{"city":"Oslo"}' }]);
		expect(result.finish?.finishReason).toEqual({ unified: "tool-calls", raw: "tool_calls" });
		expect(result.finish?.usage.inputTokens).toMatchObject({ total: 50, cacheRead: 10 });
		expect(result.finish?.usage.outputTokens).toMatchObject({ total: 30, reasoning: 12 });
	});

	it("sends no usage chunk unless the request asks for it", async () => {
		server.enqueue({ text: "hi", usage: { input: 50, output: 30 } });
		const result = await streamOf(compatible(false));
		expect(server.requests[0]?.body).not.toHaveProperty("stream_options");
		expect(result.text).toBe("hi");
		expect(result.finish?.finishReason.unified).toBe("stop");
		expect(result.finish?.usage.inputTokens.total).toBeUndefined();
	});

	it("no-finish is reported by this provider as an error", async () => {
		server.enqueue({ text: "cut", fault: { kind: "no-finish" } });
		const result = await streamOf(compatible());
		expect(result.text).toBe("cut");
		expect((result.errors[0] as Error).message).toMatch(/without a finish reason/);
		expect(result.finish?.finishReason.unified).toBe("error");
	});
});

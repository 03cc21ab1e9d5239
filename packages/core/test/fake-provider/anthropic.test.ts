import { createAnthropic } from "@ai-sdk/anthropic";
import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import type { FakeProviderServer } from "../../src/testing.js";
import { fakeProviderPerTest } from "./per-test.js";
import { doStreamError, streamOf } from "./sdk.js";

let server: FakeProviderServer;
fakeProviderPerTest((started) => {
	server = started;
});

const claude = () => createAnthropic({ baseURL: `${server.url}/v1`, apiKey: "k" })("claude-x");

describe("Anthropic Messages through @ai-sdk/anthropic", () => {
	it("streams thinking with its signature, text, cache usage and end_turn", async () => {
		server.enqueue({
			reasoning: ["Hmm", ", 2+2."],
			reasoningSignature: "sig-123",
			text: ["It is", " 4."],
			usage: { input: 100, output: 20, cacheRead: 60, cacheWrite: 30 },
		});
		const result = await streamOf(claude());

		expect(result.reasoningDeltas.filter((delta) => delta !== "")).toEqual(["Hmm", ", 2+2."]);
		const signed = result.parts.find((part) => part.type === "reasoning-delta" && part.providerMetadata !== undefined);
		expect(signed).toMatchObject({ delta: "", providerMetadata: { anthropic: { signature: "sig-123" } } });
		expect(result.textDeltas).toEqual(["It is", " 4."]);
		expect(result.finish?.finishReason).toEqual({ unified: "stop", raw: "end_turn" });
		expect(result.finish?.usage.inputTokens).toEqual({ total: 100, noCache: 10, cacheRead: 60, cacheWrite: 30 });
		expect(result.finish?.usage.outputTokens.total).toBe(20);

		const [request] = server.requests;
		expect(request).toMatchObject({ api: "anthropic", path: "/v1/messages" });
		expect(request?.headers["x-api-key"]).toBe("k");
		expect(request?.body).toMatchObject({ model: "claude-x", stream: true });
	});

	it("streams tool_use blocks as tool calls with a tool_use finish", async () => {
		server.enqueue({
			text: "Let me check.",
			toolCalls: [
				{ id: "toolu_1", name: "weather", arguments: { city: "Lima" }, chunks: 3 },
				{ id: "toolu_2", name: "clock", arguments: "" },
			],
		});
		const result = await streamOf(claude());

		expect(result.text).toBe("Let me check.");
		expect(result.toolCalls).toEqual([
			{ id: "toolu_1", name: "weather", input: '{"city":"Lima"}' },
			// An empty argument text is `{}` to the SDK, as in the recorded no-argument call.
			{ id: "toolu_2", name: "clock", input: "{}" },
		]);
		expect(result.parts.filter((part) => part.type === "tool-input-delta" && part.id === "toolu_1")).toHaveLength(3);
		expect(result.finish?.finishReason).toEqual({ unified: "tool-calls", raw: "tool_use" });
	});

	it("surfaces 529 overloaded and 429 with retry-after in Anthropic's error shape", async () => {
		server.enqueue(
			{ fault: { kind: "status", status: 529 } },
			{ fault: { kind: "status", status: 429, retryAfterSeconds: 12 } },
			{ fault: { kind: "status", status: 401 } },
		);
		const overloaded = await doStreamError(claude());
		expect(APICallError.isInstance(overloaded)).toBe(true);
		expect(overloaded).toMatchObject({ statusCode: 529, isRetryable: true, message: "Overloaded" });
		expect((overloaded as APICallError).data).toEqual({
			type: "error",
			error: { type: "overloaded_error", message: "Overloaded" },
		});

		const limited = await doStreamError(claude());
		expect(limited).toMatchObject({ statusCode: 429, isRetryable: true });
		expect((limited as APICallError).responseHeaders?.["retry-after"]).toBe("12");
		expect(JSON.parse((limited as APICallError).responseBody ?? "")).toMatchObject({
			type: "error",
			error: { type: "rate_limit_error" },
		});

		expect(await doStreamError(claude())).toMatchObject({ statusCode: 401, isRetryable: false });
	});

	it("an error event first thing rejects doStream as overloaded", async () => {
		server.enqueue({ text: "never", fault: { kind: "stream-error", afterEvents: 0 } });
		const error = await doStreamError(claude());
		expect(APICallError.isInstance(error)).toBe(true);
		expect(error).toMatchObject({ statusCode: 529, isRetryable: true, message: "Overloaded" });
	});

	it("an error event mid-stream becomes an error part and no finish", async () => {
		server.enqueue({ text: ["one", "two"], fault: { kind: "stream-error", afterEvents: 4, code: "api_error" } });
		const result = await streamOf(claude());
		expect(result.text).toBe("one");
		expect(result.errors).toEqual([{ type: "api_error", message: "Internal server error" }]);
		expect(result.finish).toBeUndefined();
	});

	it("a drop rejects the stream read", async () => {
		server.enqueue({ text: ["one", "two"], fault: { kind: "drop", afterEvents: 4 } });
		const result = await streamOf(claude());
		expect(result.text).toBe("one");
		// undici's "terminated" (socket closed) wrapped by the SDK, retryable.
		expect(APICallError.isInstance(result.thrown)).toBe(true);
		expect(result.thrown).toMatchObject({ isRetryable: true, cause: { message: "terminated" } });
	});

	it("malformed JSON becomes an error part", async () => {
		server.enqueue({ text: ["one", "two"], fault: { kind: "malformed", afterEvents: 4 } });
		const result = await streamOf(claude());
		expect(result.text).toBe("one");
		expect((result.errors[0] as Error).name).toBe("AI_JSONParseError");
	});

	it("no-finish leaves out message_delta and message_stop: no finish part at all", async () => {
		server.enqueue({ text: "cut", fault: { kind: "no-finish" } });
		const result = await streamOf(claude());
		expect(result.text).toBe("cut");
		expect(result.thrown).toBeUndefined();
		expect(result.finish).toBeUndefined();
	});

	it("a stall keeps the stream open until the client aborts", async () => {
		server.enqueue({ text: ["one", "two"], fault: { kind: "stall", afterEvents: 4 } });
		const result = await streamOf(claude(), { abortSignal: AbortSignal.timeout(150) });
		expect(result.text).toBe("one");
		expect(result.thrown).toBeDefined();
	});
});

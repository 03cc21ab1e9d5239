import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, type LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { replayPlan } from "../../src/testing/fake-provider/replay.js";
import type { FakeProviderServer } from "../../src/testing.js";
import { fakeProviderPerTest } from "./per-test.js";
import { doStreamError, fixtureLines, streamOf } from "./sdk.js";

let server: FakeProviderServer;
fakeProviderPerTest((started) => {
	server = started;
});

const claude = () => createAnthropic({ baseURL: `${server.url}/v1`, apiKey: "k" })("claude-x");
const responses = () => createOpenAI({ baseURL: `${server.url}/v1`, apiKey: "k" }).responses("gpt-x");
const openaiChat = () => createOpenAI({ baseURL: `${server.url}/v1`, apiKey: "k" }).chat("gpt-x");
const compatible = () =>
	createOpenAICompatible({ name: "x", baseURL: `${server.url}/v1`, apiKey: "k", includeUsage: true }).chatModel("m");

/**
 * Stream parts without what a scripted reply cannot reproduce: item ids, metadata, raw usage and
 * where argument text was cut (consecutive argument deltas are joined).
 */
function comparable(parts: LanguageModelV3StreamPart[]): unknown[] {
	const result: Record<string, unknown>[] = [];
	for (const part of parts) {
		if (part.type === "response-metadata") continue;
		if (part.type === "finish") {
			result.push({ type: part.type, finishReason: part.finishReason, usage: { ...part.usage, raw: undefined } });
			continue;
		}
		const previous = result.at(-1);
		if (part.type === "tool-input-delta" && previous?.type === part.type && previous.id === part.id) {
			previous.delta = `${previous.delta}${part.delta}`;
			continue;
		}
		const { providerMetadata: _metadata, ...rest } = part as { providerMetadata?: unknown } & Record<string, unknown>;
		if (part.type.startsWith("text-") || part.type.startsWith("reasoning-")) delete rest.id;
		result.push(rest);
	}
	return result;
}

describe("replayRecorded", () => {
	it("splits writes at arbitrary byte offsets, inside multi-byte characters too", () => {
		const lines = fixtureLines("anthropic__anthropic-clear-thinking.1");
		const whole = Buffer.concat(replayPlan(lines, "event-named", {}).writes);
		const pieces = replayPlan(lines, "event-named", { splitWrites: true, seed: 7 }).writes;

		expect(Buffer.concat(pieces).equals(whole)).toBe(true);
		expect(pieces.length).toBeGreaterThan(100);
		expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(24);
		// "÷" is C3 B7: some piece must end right after its first byte.
		expect(pieces.some((piece) => piece.at(-1) === 0xc3)).toBe(true);
		expect(() => replayPlan(['{"no_type":1}'], "event-named", {})).toThrow(/line 1/);
	});

	it("event-named, split: Anthropic extended thinking with non-ASCII text", async () => {
		server.replayRecorded(fixtureLines("anthropic__anthropic-clear-thinking.1"), "event-named", { splitWrites: true });
		const result = await streamOf(claude());

		expect(result.text).toBe("925 ÷ 5 = 185");
		expect(result.reasoningDeltas.join("")).toBe(
			"The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
		);
		const signatures = result.parts.flatMap((part) =>
			part.type === "reasoning-delta" && part.providerMetadata !== undefined
				? [part.providerMetadata.anthropic?.signature]
				: [],
		);
		expect(signatures).toHaveLength(1);
		expect(String(signatures[0])).toHaveLength(332);
		expect(result.finish?.finishReason).toEqual({ unified: "stop", raw: "end_turn" });
		expect(result.finish?.usage.inputTokens).toMatchObject({ total: 69, cacheRead: 0, cacheWrite: 0 });
		expect(result.finish?.usage.outputTokens.total).toBe(53);
	});

	it("event-named, split: an OpenAI Responses function call after encrypted reasoning", async () => {
		server.replayRecorded(fixtureLines("openai-responses__openai-issue-11239.1"), "event-named", { splitWrites: true });
		const result = await streamOf(responses());

		expect(result.toolCalls).toEqual([
			{ id: "call_wMUhph1s1bedjPJraJvGw62X", name: "lookupVerificationCode", input: '{"label":"issue-11239"}' },
		]);
		expect(result.finish?.finishReason.unified).toBe("tool-calls");
		expect(result.finish?.usage.inputTokens).toMatchObject({ total: 84, cacheRead: 0 });
		expect(result.finish?.usage.outputTokens).toMatchObject({ total: 39, reasoning: 15 });
	});

	it("data-only+DONE, split: DeepSeek reasoning_content and a fragmented tool call", async () => {
		server.replayRecorded(fixtureLines("deepseek__deepseek-tool-call"), "data-only+DONE", {
			splitWrites: true,
			seed: 3,
		});
		const result = await streamOf(compatible());

		expect(result.reasoningDeltas.join("")).toHaveLength(191);
		expect(result.toolCalls).toEqual([
			{ id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", name: "weather", input: '{"location": "San Francisco"}' },
		]);
		expect(result.finish?.finishReason).toEqual({ unified: "tool-calls", raw: "tool_calls" });
		expect(result.finish?.usage.inputTokens).toMatchObject({ total: 339, cacheRead: 320 });
		expect(result.finish?.usage.outputTokens).toMatchObject({ total: 83, reasoning: 39 });
	});

	it("data-only, split: a Gemini stream with no terminator", async () => {
		server.replayRecorded(fixtureLines("google__google-text"), "data-only", { splitWrites: true });
		const gemini = createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey: "k" })("gemini-x");
		const result = await streamOf(gemini);

		expect(result.text).toBe('There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y');
		expect(result.finish?.finishReason.unified).toBe("stop");
		expect(result.finish?.usage.inputTokens.total).toBe(9);
		expect(result.finish?.usage.outputTokens).toMatchObject({ total: 208, reasoning: 185 });
		expect(server.requests[0]).toMatchObject({ api: "google", path: "/v1beta/models/gemini-x:streamGenerateContent" });
	});
});

describe("scripted replies read like the recorded ones", () => {
	it("Anthropic: a scripted reply gives the same stream parts as the recorded thinking stream", async () => {
		const recorded = fixtureLines("anthropic__anthropic-clear-thinking.1");
		server.replayRecorded(recorded, "event-named");
		const thinking = recorded
			.filter((line) => line.includes('"thinking_delta"'))
			.map((line) => JSON.parse(line).delta.thinking as string);
		const signature = JSON.parse(recorded.find((line) => line.includes("signature_delta")) ?? "").delta.signature;
		server.enqueue({
			reasoning: thinking,
			reasoningSignature: signature,
			text: ["925", " ÷ 5 ", "= 185"],
			usage: { input: 69, output: 53 },
		});

		const fromRecording = await streamOf(claude());
		const fromScript = await streamOf(claude());
		expect(comparable(fromScript.parts)).toEqual(comparable(fromRecording.parts));
	});

	it("Responses: a scripted reply gives the same stream parts as the recorded function call", async () => {
		server.replayRecorded(fixtureLines("openai-responses__openai-issue-11239.1"), "event-named");
		server.enqueue({
			reasoning: [],
			toolCalls: [
				{
					id: "call_wMUhph1s1bedjPJraJvGw62X",
					name: "lookupVerificationCode",
					arguments: '{"label":"issue-11239"}',
					chunks: 8,
				},
			],
			usage: { input: 84, output: 39, cacheRead: 0, reasoning: 15 },
		});

		const fromRecording = await streamOf(responses());
		const fromScript = await streamOf(responses());
		expect(comparable(fromScript.parts)).toEqual(comparable(fromRecording.parts));
	});

	it("Responses: a scripted quota stream-error fails like the recorded one", async () => {
		server.replayRecorded(fixtureLines("openai-responses__openai-error.1"), "event-named");
		server.enqueue({ text: "never", fault: { kind: "stream-error", afterEvents: 2, code: "insufficient_quota" } });

		const recorded = await doStreamError(responses());
		const scripted = await doStreamError(responses());
		expect(APICallError.isInstance(recorded)).toBe(true);
		const fields = (error: unknown) => {
			const { statusCode, isRetryable, message } = error as APICallError;
			return { statusCode, isRetryable, message };
		};
		expect(fields(scripted)).toEqual(fields(recorded));
	});

	it("Chat Completions: a scripted reply gives the same stream parts as the recorded text + tool call", async () => {
		server.replayRecorded(fixtureLines("openai-compatible__issue-15789-step-1"), "data-only+DONE");
		server.enqueue({
			text: ["PRE", "_TOOL"],
			toolCalls: [{ id: "call_NZa7xqfefoaMI2YYHowVXVlU", name: "weather", arguments: "{}" }],
			usage: { input: 58, output: 12, reasoning: 0 },
		});

		const fromRecording = await streamOf(openaiChat());
		const fromScript = await streamOf(openaiChat());
		expect(comparable(fromScript.parts)).toEqual(comparable(fromRecording.parts));
	});
});

import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { FakeProviderServer } from "../../src/testing.js";
import { fakeProviderPerTest } from "./per-test.js";
import { doStreamError, PROMPT, streamOf } from "./sdk.js";

let server: FakeProviderServer;
fakeProviderPerTest((started) => {
	server = started;
});

const claude = () => createAnthropic({ baseURL: `${server.url}/v1`, apiKey: "k" })("claude-x");
const openai = () => createOpenAI({ baseURL: `${server.url}/v1`, apiKey: "k" });

describe("FakeProviderServer", () => {
	it("listens on loopback with a free port", () => {
		expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
	});

	it("answers an empty queue with a 500 naming the API and the request number", async () => {
		server.enqueue({ text: "first" });
		await streamOf(claude());
		const anthropicError = await doStreamError(claude());
		expect(APICallError.isInstance(anthropicError)).toBe(true);
		expect(anthropicError).toMatchObject({
			statusCode: 500,
			message: "fake provider: no reply queued for anthropic request #2 (POST /v1/messages)",
		});
		const chatError = await doStreamError(openai().chat("gpt-x"));
		expect((chatError as Error).message).toBe(
			"fake provider: no reply queued for openai-chat request #3 (POST /v1/chat/completions)",
		);
		expect(server.requests).toHaveLength(3);
	});

	it("hands out replies in arrival order whatever the API, and reply functions see the request", async () => {
		server.enqueue({ text: "one" }, (request, index) => ({
			text: `#${index} ${request.api} ${JSON.stringify(request.body).includes("Paris") ? "saw Paris" : "?"}`,
		}));
		expect(server.pendingReplies).toBe(2);

		expect((await streamOf(openai().responses("gpt-x"))).text).toBe("one");
		expect((await streamOf(claude())).text).toBe("#1 anthropic saw Paris");
		expect(server.pendingReplies).toBe(0);
	});

	it("answers a reply function that throws with a 500 carrying its message", async () => {
		server.enqueue(() => {
			throw new Error("script bug");
		});
		const error = await doStreamError(openai().responses("gpt-x"));
		expect((error as Error).message).toBe("fake provider: openai-responses request #1: script bug");
	});

	it("answers unknown paths with a 404 without taking a reply or recording", async () => {
		server.enqueue({ text: "kept" });
		const response = await fetch(`${server.url}/v1/embeddings`, { method: "POST", body: "{}" });
		expect(response.status).toBe(404);
		expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/no API at POST/);
		expect(server.requests).toEqual([]);
		expect(server.pendingReplies).toBe(1);
	});

	it("answers a body that is not JSON with a 400 in the API's shape, recorded, without taking a reply", async () => {
		server.enqueue({ text: "kept" });
		const response = await fetch(`${server.url}/v1/messages`, { method: "POST", body: "{oops" });
		expect(response.status).toBe(400);
		expect(await response.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
		expect(server.requests[0]).toMatchObject({ api: "anthropic", body: null, rawBody: "{oops" });
		expect(server.pendingReplies).toBe(1);
	});

	it("serves Gemini paths only with replays; a scripted stream gets a 500 saying so", async () => {
		server.enqueue({ text: "no" }, { fault: { kind: "status", status: 429, retryAfterSeconds: 2 } });
		const url = `${server.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse`;
		const scripted = await fetch(url, { method: "POST", body: "{}" });
		expect(scripted.status).toBe(500);
		expect(await scripted.json()).toMatchObject({ error: { message: expect.stringMatching(/use replayRecorded/) } });
		const limited = await fetch(url, { method: "POST", body: "{}" });
		expect(limited.status).toBe(429);
		expect(limited.headers.get("retry-after")).toBe("2");
		expect(await limited.json()).toMatchObject({ error: { code: 429, status: "RESOURCE_EXHAUSTED" } });
	});

	it("waits chunkDelayMs between events", async () => {
		server.enqueue({ text: ["a", "b", "c"], chunkDelayMs: 40 });
		const asked = performance.now();
		const { stream } = await claude().doStream({ prompt: PROMPT });
		const arrivals: number[] = [];
		for await (const part of stream) if (part.type === "text-delta") arrivals.push(performance.now());
		expect(arrivals).toHaveLength(3);
		// Measured from the request, not between arrivals: a busy reader can take two events in one
		// read, but nothing makes the last one come before the two waits ahead of it. Timers may
		// fire a little early; 30 ms of each 40 is proof enough.
		expect(arrivals[2]! - asked).toBeGreaterThanOrEqual(2 * 30);
	});

	it("close() ends stalled streams and returns promptly", async () => {
		server.enqueue({ text: ["a", "b"], fault: { kind: "stall", afterEvents: 4 } });
		const { stream } = await claude().doStream({ prompt: PROMPT });
		const reader = stream.getReader();
		const seen: string[] = [];
		let firstDelta!: () => void;
		const deltaSeen = new Promise<void>((resolve) => {
			firstDelta = resolve;
		});
		const finished = (async () => {
			for (;;) {
				const { done, value } = await reader.read();
				if (done) return "done";
				if (value.type === "text-delta") {
					seen.push(value.delta);
					firstDelta();
				}
			}
		})().catch(() => "rejected");

		await deltaSeen;
		// Stalled after "a": close() returns at all only if it ends the stalled stream rather than waiting on it.
		await server.close();
		expect(seen).toEqual(["a"]);
		expect(await finished).toBe("rejected");
		server = await FakeProviderServer.start();
	});
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import { AiSdkModel } from "../../src/model/ai-sdk/adapter.js";
import { loadLanguageModel, type ProviderKind } from "../../src/model/ai-sdk/providers.js";
import type { ModelFailure } from "../../src/model/failure.js";
import type { ModelAdapter, ModelEvent, ModelRequest } from "../../src/model/model-adapter.js";
import { type StreamTimeouts, TimedModel } from "../../src/model/timeouts.js";
import { FakeProviderServer, type FakeReply, type Fault } from "../../src/testing.js";

/**
 * Every wire format against every fault, over real sockets: the adapter must end each stream with
 * one error outcome whose failure has the class of docs/architecture.md §3 (and the HTTP status when there was
 * one), never throw, and deliver what streamed before a failure ahead of the outcome.
 */

interface Wire {
	provider: ProviderKind;
	/** SSE events up to and including the first text delta of a reply with text ["one", "two"]. */
	throughFirstDelta: number;
	/** How this wire's provider words an in-stream overload. */
	overloaded: { code?: string; message?: string };
	/** A 400 that says the prompt did not fit, as this provider sends it. */
	overflow: { code?: string; message: string };
}

const OPENAI_OVERFLOW = {
	code: "context_length_exceeded",
	message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
};
const OPENAI_OVERLOADED = {
	message: "The server is currently overloaded with other requests. Please try again later.",
};

const WIRES: Wire[] = [
	{ provider: "openai-chat", throughFirstDelta: 2, overloaded: OPENAI_OVERLOADED, overflow: OPENAI_OVERFLOW },
	{ provider: "openai-compatible", throughFirstDelta: 2, overloaded: OPENAI_OVERLOADED, overflow: OPENAI_OVERFLOW },
	{ provider: "openai", throughFirstDelta: 5, overloaded: OPENAI_OVERLOADED, overflow: OPENAI_OVERFLOW },
	{
		provider: "anthropic",
		throughFirstDelta: 4,
		overloaded: { code: "overloaded_error" },
		overflow: { message: "prompt is too long: 210000 tokens > 200000 maximum" },
	},
];

/**
 * Limits no case runs into: on a busy machine a request's first byte or its next event may take
 * well over a second, which must not read as a stall of the case under test.
 */
const LIMITS = { firstByteMs: 30_000, idleMs: 30_000, requestMs: 60_000 };
/**
 * The one limit a stall runs into, small so a stalled case ends in well under a second; the
 * others stay out of reach, so only the stall under test can trip.
 */
const IDLE_STALL = { ...LIMITS, idleMs: 200 };
const FIRST_BYTE_STALL = { ...LIMITS, firstByteMs: 200 };

interface FaultCase {
	name: string;
	fault: (wire: Wire) => Fault;
	expected: Partial<ModelFailure> & Pick<ModelFailure, "class">;
	/** The stream's time limits, when the case is a stall. */
	limits?: StreamTimeouts;
}

const CASES: FaultCase[] = [
	// The connection goes away.
	{
		name: "drop after the first text delta",
		fault: (wire) => ({ kind: "drop", afterEvents: wire.throughFirstDelta }),
		expected: { class: "timeout" },
	},
	{ name: "drop before any event", fault: () => ({ kind: "drop", afterEvents: 0 }), expected: { class: "timeout" } },
	{
		name: "stall after the first text delta (idle limit)",
		fault: (wire) => ({ kind: "stall", afterEvents: wire.throughFirstDelta }),
		expected: { class: "timeout", message: "the stream stalled: no event for 200 ms" },
		limits: IDLE_STALL,
	},
	{
		name: "stall before any event (first-byte limit)",
		fault: () => ({ kind: "stall", afterEvents: 0 }),
		expected: { class: "timeout", message: "no first byte within 200 ms" },
		limits: FIRST_BYTE_STALL,
	},
	// HTTP errors instead of a stream.
	{ name: "401 unauthorized", fault: () => status(401), expected: { class: "auth", status: 401 } },
	{ name: "403 forbidden", fault: () => status(403), expected: { class: "auth", status: 403 } },
	{ name: "408 request timeout", fault: () => status(408), expected: { class: "timeout", status: 408 } },
	{
		name: "429 with retry-after: 7",
		fault: () => ({ kind: "status", status: 429, retryAfterSeconds: 7 }),
		expected: { class: "timeout", status: 429, retryAfterMs: 7_000 },
	},
	{
		name: "429 insufficient_user_quota",
		fault: () => status(429, "insufficient_user_quota"),
		expected: { class: "timeout", status: 429, code: "insufficient_user_quota" },
	},
	{
		name: "429 insufficient_quota (billing)",
		fault: () => status(429, "insufficient_quota"),
		expected: { class: "fatal", status: 429, code: "insufficient_quota" },
	},
	{ name: "500 internal error", fault: () => status(500), expected: { class: "timeout", status: 500 } },
	{ name: "503 unavailable", fault: () => status(503), expected: { class: "timeout", status: 503 } },
	{ name: "529 overloaded", fault: () => status(529), expected: { class: "timeout", status: 529 } },
	{ name: "400 bad request", fault: () => status(400), expected: { class: "fatal", status: 400 } },
	{ name: "404 not found", fault: () => status(404), expected: { class: "fatal", status: 404 } },
	{
		name: "400 context overflow",
		fault: (wire) => ({ kind: "status", status: 400, ...wire.overflow }),
		expected: { class: "fatal", status: 400, contextOverflow: true },
	},
	// A broken stream.
	{
		name: "malformed JSON chunk after the first text delta",
		fault: (wire) => ({ kind: "malformed", afterEvents: wire.throughFirstDelta }),
		expected: { class: "malformed" },
	},
	{
		name: "malformed JSON as the first event",
		fault: () => ({ kind: "malformed", afterEvents: 0 }),
		expected: { class: "malformed" },
	},
	{ name: "stream ends without its finish", fault: () => ({ kind: "no-finish" }), expected: { class: "malformed" } },
	// The provider's error inside a 200 stream.
	{
		name: "in-stream insufficient_quota after the first text delta",
		fault: (wire) => ({ kind: "stream-error", afterEvents: wire.throughFirstDelta, code: "insufficient_quota" }),
		expected: { class: "fatal", code: "insufficient_quota" },
	},
	{
		name: "in-stream insufficient_quota before any output",
		fault: () => ({ kind: "stream-error", afterEvents: 1, code: "insufficient_quota" }),
		expected: { class: "fatal", code: "insufficient_quota" },
	},
	{
		name: "in-stream overloaded after the first text delta",
		fault: (wire) => ({ kind: "stream-error", afterEvents: wire.throughFirstDelta, ...wire.overloaded }),
		expected: { class: "timeout" },
	},
	{
		name: "in-stream overloaded before any output",
		fault: (wire) => ({ kind: "stream-error", afterEvents: 1, ...wire.overloaded }),
		expected: { class: "timeout" },
	},
	{
		name: "in-stream insufficient_user_quota after the first text delta",
		fault: (wire) => ({ kind: "stream-error", afterEvents: wire.throughFirstDelta, code: "insufficient_user_quota" }),
		expected: { class: "timeout", code: "insufficient_user_quota" },
	},
];

function status(code: number, errorCode?: string): Fault {
	return errorCode === undefined ? { kind: "status", status: code } : { kind: "status", status: code, code: errorCode };
}

const REQUEST: ModelRequest = { messages: [userText("Say one two.")], tools: [], purpose: "turn" };

let server: FakeProviderServer;
beforeAll(async () => {
	server = await FakeProviderServer.start();
	// The provider SDKs load lazily: load them before the first timed request (a stall case's first-byte limit is 200 ms).
	await Promise.all(
		WIRES.map((wire) => loadLanguageModel({ provider: wire.provider, model: "m", baseURL: server.url })),
	);
});
afterAll(async () => {
	await server.close();
});

function modelFor(wire: Wire, limits: StreamTimeouts = LIMITS): ModelAdapter {
	const model = AiSdkModel.fromConfig({
		provider: wire.provider,
		model: "m",
		apiKey: "k",
		baseURL: `${server.url}/v1`,
	});
	return new TimedModel(model, limits);
}

/** Runs one request to its end; the adapter must not throw. */
async function run(model: ModelAdapter, reply: FakeReply): Promise<ModelEvent[]> {
	server.enqueue(reply);
	const events: ModelEvent[] = [];
	for await (const event of model.streamGenerate(REQUEST, new AbortController().signal)) events.push(event);
	expect(server.pendingReplies).toBe(0);
	return events;
}

function failureOf(events: ModelEvent[]): ModelFailure | undefined {
	const last = events.at(-1);
	expect(last?.type).toBe("outcome");
	expect(events.filter((event) => event.type === "outcome")).toHaveLength(1);
	if (last?.type !== "outcome") return undefined;
	expect(last.outcome).toMatchObject({ status: "error" });
	return last.outcome.status === "error" ? last.outcome.failure : undefined;
}

describe.each(WIRES)("$provider", (wire) => {
	it("streams a reply without a fault to an ok outcome (control)", async () => {
		const events = await run(modelFor(wire), { text: ["one", "two"] });
		expect(events.filter((event) => event.type === "text_delta")).toEqual([
			{ type: "text_delta", delta: "one" },
			{ type: "text_delta", delta: "two" },
		]);
		expect(events.at(-1)).toEqual({ type: "outcome", outcome: { status: "ok", finishReason: "stop" } });
	});

	it.each(CASES)("$name → $expected.class", async ({ fault, expected, limits }) => {
		const events = await run(modelFor(wire, limits), { text: ["one", "two"], fault: fault(wire) });
		const failure = failureOf(events);
		expect(failure).toMatchObject(expected);
		if (expected.contextOverflow === undefined) expect(failure?.contextOverflow).toBeUndefined();
	});

	it.each([
		{ name: "drop", fault: { kind: "drop", afterEvents: wire.throughFirstDelta } },
		{ name: "stall", fault: { kind: "stall", afterEvents: wire.throughFirstDelta }, limits: IDLE_STALL },
		{ name: "malformed chunk", fault: { kind: "malformed", afterEvents: wire.throughFirstDelta } },
		{ name: "in-stream error", fault: { kind: "stream-error", afterEvents: wire.throughFirstDelta } },
	] satisfies { name: string; fault: Fault; limits?: StreamTimeouts }[])(
		"delivers the partial output before the error outcome of a $name",
		async ({ fault, limits }) => {
			const events = await run(modelFor(wire, limits), { text: ["one", "two"], fault });
			expect(events.map((event) => event.type)).toEqual(["text_delta", "outcome"]);
			expect(events[0]).toEqual({ type: "text_delta", delta: "one" });
			expect(failureOf(events)).toBeDefined();
		},
	);
});

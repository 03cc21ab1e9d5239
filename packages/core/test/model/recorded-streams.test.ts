import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { assistantText, reasoning, toolCall, toolCallOutput, userText } from "../../src/messages/index.js";
import type { JsonObject, JsonValue, ModelMessage } from "../../src/messages/omni-message.js";
import { AiSdkModel } from "../../src/model/ai-sdk/adapter.js";
import type { ProviderKind } from "../../src/model/ai-sdk/providers.js";
import type { FinishReason, ModelEvent, ModelOutcome } from "../../src/model/model-adapter.js";
import { FakeProviderServer, type RecordedProviderRequest, type ReplayConvention } from "../../src/testing.js";

/**
 * Every stream in test/fixtures/recorded-streams (recorded from the live provider APIs, see its
 * README) replayed through AiSdkModel over the fake provider's real HTTP, checked against the
 * facts in expected.json. Each file is replayed with one write per SSE event and again with the
 * bytes cut at arbitrary offsets (inside multi-byte characters too).
 */

const DIR = new URL("../fixtures/recorded-streams/", import.meta.url);

interface ExpectedToolCall {
	/** null for Google, which sends no call id. */
	id: string | null;
	name: string;
	arguments: JsonObject;
}

interface ExpectedUsage {
	inputTokens: number;
	outputTokens: number;
	cacheReadTokens?: number;
	cacheWriteTokens?: number;
	reasoningTokens?: number;
}

interface AnthropicThinking {
	text: string;
	signature: string;
}

interface ResponsesReasoning {
	summary: string;
	encryptedContent: boolean;
}

interface GoogleReasoning {
	thoughtText: string;
	/** `line` is 1-based; `part` is "functionCall <name>" or "empty text part". */
	thoughtSignatures: { line: number; part: string; length: number }[];
}

/** expected.json's shape; `reasoning` depends on the provider (see the README's "Expected facts"). */
interface Expected {
	provider: string;
	sseConvention: ReplayConvention;
	text: string;
	reasoning: AnthropicThinking[] | ResponsesReasoning[] | string | GoogleReasoning;
	toolCalls: ExpectedToolCall[];
	usage: ExpectedUsage | null;
	finishReason: string;
	rawFinishReason: string | null;
	error?: { type: string; code: string; message: string };
	promptFeedback?: { blockReason: string };
}

const EXPECTED = JSON.parse(readFileSync(new URL("expected.json", DIR), "utf8")) as Record<string, Expected>;

/** Our provider kind per recorded provider: DeepSeek and Mistral speak Chat Completions. */
const KIND: Record<string, ProviderKind> = {
	anthropic: "anthropic",
	"openai-responses": "openai",
	"openai-chat": "openai-chat",
	"openai-compatible": "openai-compatible",
	deepseek: "openai-compatible",
	mistral: "openai-compatible",
	google: "google",
};

/** The path each API answers (README "Endpoints"); the server also takes DeepSeek's bare /chat/completions. */
const PATH: Record<ProviderKind, string> = {
	anthropic: "/v1/messages",
	openai: "/v1/responses",
	"openai-chat": "/v1/chat/completions",
	"openai-compatible": "/v1/chat/completions",
	google: "/v1beta/models/m:streamGenerateContent",
};

/** expected.json's normalised finish reasons → ours. */
const FINISH: Record<string, FinishReason> = {
	stop: "stop",
	"tool-calls": "tool_calls",
	length: "length",
	"content-filter": "content_filter",
	other: "other",
};

function fixtureLines(file: string): string[] {
	return readFileSync(new URL(file, DIR), "utf8").split("\n");
}

/** "anthropic__anthropic-tool-no-args.chunks.txt" → "anthropic-tool-no-args". */
function shortName(file: string): string {
	return file.replace(/^[^_]+__/, "").replace(/\.chunks\.txt$/, "");
}

function modelOn(server: FakeProviderServer, provider: ProviderKind): AiSdkModel {
	const baseURL = `${server.url}${provider === "google" ? "/v1beta" : "/v1"}`;
	return AiSdkModel.fromConfig({ provider, model: "m", apiKey: "test", baseURL });
}

interface Run {
	events: ModelEvent[];
	/** What iterating the stream threw; the adapter contract says nothing ever is. */
	thrown: unknown;
	requests: RecordedProviderRequest[];
}

async function collect(model: AiSdkModel, messages: ModelMessage[]): Promise<Omit<Run, "requests">> {
	const events: ModelEvent[] = [];
	try {
		const request = { messages, tools: [], purpose: "turn" as const };
		for await (const event of model.streamGenerate(request, new AbortController().signal)) events.push(event);
		return { events, thrown: undefined };
	} catch (error) {
		return { events, thrown: error };
	}
}

interface Variant {
	name: string;
	splitWrites: boolean;
	lineEnding?: "\n" | "\r\n";
}

const VARIANTS: Variant[] = [
	{ name: "whole writes", splitWrites: false },
	{ name: "split writes", splitWrites: true },
];

/** One request against a fresh server that replays `file`. */
async function replay(file: string, variant: Variant, seed: number): Promise<Run> {
	const fact = EXPECTED[file]!;
	const server = await FakeProviderServer.start();
	try {
		server.replayRecorded(fixtureLines(file), fact.sseConvention, {
			splitWrites: variant.splitWrites,
			seed,
			...(variant.lineEnding === undefined ? {} : { lineEnding: variant.lineEnding }),
		});
		const result = await collect(modelOn(server, KIND[fact.provider]!), [userText("hi")]);
		return { ...result, requests: [...server.requests] };
	} finally {
		await server.close();
	}
}

// ── reading events ──────────────────────────────────────────────────────────────────────────

function ofType<T extends ModelEvent["type"]>(events: ModelEvent[], type: T): Extract<ModelEvent, { type: T }>[] {
	return events.filter((event): event is Extract<ModelEvent, { type: T }> => event.type === type);
}

function outcomeOf(events: ModelEvent[]): ModelOutcome | undefined {
	const last = events.at(-1);
	return last?.type === "outcome" ? last.outcome : undefined;
}

/** A nested field of provider metadata, e.g. `meta(m, "anthropic", "signature")`. */
function meta(metadata: JsonObject | undefined, ...path: string[]): JsonValue | undefined {
	let value: JsonValue | undefined = metadata;
	for (const key of path) {
		if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
		value = value[key];
	}
	return value;
}

function abbreviate(text: string, max = 48): string {
	const shown = JSON.stringify(text);
	return shown.length <= max ? shown : `${shown.slice(0, max - 4)}…"`;
}

/** The recorded payload on a 1-based line, parsed. */
function payload(file: string, line: number): JsonObject {
	return JSON.parse(fixtureLines(file)[line - 1]!) as JsonObject;
}

/** The `thoughtSignature` of the first part on a recorded Gemini line that carries one. */
function geminiSignature(file: string, line: number): string {
	const candidates = payload(file, line).candidates as JsonObject[];
	const parts = (candidates[0]!.content as JsonObject).parts as JsonObject[];
	const signed = parts.find((part) => typeof part.thoughtSignature === "string");
	return signed!.thoughtSignature as string;
}

/** The encrypted_content of each reasoning item as its `response.output_item.done` carries it, by item id. */
function responsesEncryptedContent(file: string): Map<string, string> {
	const byItem = new Map<string, string>();
	for (const line of fixtureLines(file)) {
		if (line.trim() === "") continue;
		const event = JSON.parse(line) as JsonObject;
		const item = event.item as JsonObject | undefined;
		if (event.type !== "response.output_item.done" || item?.type !== "reasoning") continue;
		if (typeof item.encrypted_content === "string") byItem.set(item.id as string, item.encrypted_content);
	}
	return byItem;
}

// ── the facts ───────────────────────────────────────────────────────────────────────────────

type FactKey = "contract" | "outcome" | "text" | "toolCalls" | "usage" | "reasoning";

/** What each file exercises, as the name of the fact that shows it; other facts get a generated name. */
const HEADLINES: Record<string, Partial<Record<FactKey, string>>> = {
	"anthropic-text": { text: "six text_delta events around a ping give one text, deltas = complete item" },
	"anthropic-tool-no-args": { toolCalls: "an empty input_json_delta gives arguments {}" },
	"anthropic-issue-11719-quoted-tool-input": {
		toolCalls: "partial_json cut inside escaped quotes joins and parses to the nested arguments",
	},
	"anthropic-issue-15652-false": {
		toolCalls: "three parallel tool calls (whitespace-padded payloads) in block order, each with its id and arguments",
	},
	"anthropic-clear-thinking.1": {
		reasoning: "the thinking text and its 332-char signature come together in the reasoning's providerMetadata",
		text: 'non-ASCII text "925 ÷ 5 = 185" survives, deltas = complete item',
	},
	"anthropic-message-delta-input-tokens": { usage: "message_delta's input_tokens (61) overrides message_start's (43)" },
	"anthropic-issue-5942-cache-write": {
		usage: "cache_creation_input_tokens (16060) count in input (16063) and as cacheWrite",
	},
	"anthropic-issue-5942-cache-read": {
		usage: "cache_read_input_tokens (16060) count in input (16063) and as cacheRead",
	},
	"openai-issue-11239.1": {
		reasoning: "encrypted-only reasoning (no summary) keeps output_item.done's encrypted_content",
		toolCalls: "8 argument deltas give one call whose id is call_id, not the fc_ item id",
		outcome: "status completed with a function call is tool_calls",
	},
	"openai-error.1": {
		outcome: "an in-stream insufficient_quota error is a fatal error outcome (billing), not a throw",
	},
	"azure-model-router.1": { usage: "reasoning tokens (64) count in output (78)" },
	"issue-15789-step-1": { toolCalls: "a call after text, with empty argument text, gives arguments {}" },
	"deepseek-tool-call": {
		reasoning: "reasoning_content is the reasoning",
		usage: "prompt_cache_hit_tokens (320) is cacheRead",
	},
	"mistral-tool-call": { toolCalls: "Mistral's 9-character call id is kept" },
	"google-text": { text: "an empty text part gives no empty text event" },
	"google-tool-call": {
		toolCalls: "no call id on the wire: the call gets a generated one",
		outcome: "STOP with a function call is tool_calls",
	},
	"google-stream-no-args-tool-call": {
		toolCalls: "streamed partialArgs: read_theme gets {}, read_screen A, B, C; each call a generated id",
	},
	"issue-19758-prompt-block": {
		outcome: "a blocked prompt (no candidates, no finishReason) is content_filter, never a throw",
	},
};

function factName(file: string, key: FactKey, generated: string): string {
	const short = shortName(file);
	return `${short}: ${HEADLINES[short]?.[key] ?? generated}`;
}

function usageName(usage: ExpectedUsage | null): string {
	if (usage === null) return "no usage event (the stream failed)";
	const extras = [
		usage.cacheReadTokens === undefined ? "" : `, cacheRead ${usage.cacheReadTokens}`,
		usage.cacheWriteTokens === undefined ? "" : `, cacheWrite ${usage.cacheWriteTokens}`,
		usage.reasoningTokens === undefined ? "" : `, reasoning ${usage.reasoningTokens}`,
	].join("");
	return `usage input ${usage.inputTokens}, output ${usage.outputTokens}${extras}`;
}

function outcomeName(fact: Expected): string {
	if (fact.error !== undefined) return `error ${fact.error.code} → a fatal error outcome`;
	const raw = fact.rawFinishReason === null ? "no raw finish reason" : `raw ${fact.rawFinishReason}`;
	return `finish ${fact.finishReason} (${raw}) → ${FINISH[fact.finishReason]}`;
}

function toolCallsName(calls: ExpectedToolCall[]): string {
	if (calls.length === 0) return "no tool calls";
	return `tool calls ${calls.map((call) => `${call.name} ${call.id ?? "(generated id)"} ${JSON.stringify(call.arguments)}`).join("; ")}`;
}

function checkContract(run: Run, provider: ProviderKind): void {
	expect(run.thrown).toBeUndefined();
	expect(run.requests.map((request) => request.path)).toEqual([PATH[provider]]);
	expect(ofType(run.events, "outcome")).toHaveLength(1);
	expect(run.events.at(-1)?.type).toBe("outcome");
}

function checkOutcome(run: Run, fact: Expected): void {
	if (fact.error !== undefined) {
		// Our classification: billing `insufficient_quota` is fatal; the AI SDK reports it as HTTP 429.
		expect(outcomeOf(run.events)).toEqual({
			status: "error",
			failure: { class: "fatal", code: fact.error.code, message: fact.error.message, status: 429 },
		});
		return;
	}
	expect(outcomeOf(run.events)).toEqual({ status: "ok", finishReason: FINISH[fact.finishReason] });
}

function checkText(run: Run, fact: Expected): void {
	const deltas = ofType(run.events, "text_delta").map((event) => event.delta);
	const items = ofType(run.events, "text").map((event) => event.text);
	expect(deltas.join("")).toBe(fact.text);
	expect(items.join("")).toBe(fact.text);
	// Empty text parts contribute nothing: no empty delta, no empty item.
	expect(deltas.filter((delta) => delta === "")).toEqual([]);
	expect(items.filter((text) => text === "")).toEqual([]);
	// A complete item follows its deltas.
	const lastDelta = run.events.findLastIndex((event) => event.type === "text_delta");
	if (lastDelta >= 0) expect(lastDelta).toBeLessThan(run.events.findLastIndex((event) => event.type === "text"));
}

function checkToolCalls(run: Run, fact: Expected): void {
	const calls = ofType(run.events, "tool_call");
	expect(calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) as unknown }))).toEqual(
		fact.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments })),
	);
	fact.toolCalls.forEach((expected, index) => {
		const callId = calls[index]!.callId;
		// Google sends no id: any non-empty generated one will do, as long as it is unique.
		if (expected.id === null) expect(callId).toMatch(/\S/);
		else expect(callId).toBe(expected.id);
	});
	expect(new Set(calls.map((call) => call.callId)).size).toBe(calls.length);
	// Each call's deltas come before it and join to its arguments text.
	for (const call of calls) {
		const at = run.events.indexOf(call);
		const deltas = run.events.flatMap((event, index) =>
			event.type === "tool_call_delta" && event.callId === call.callId ? [{ event, index }] : [],
		);
		for (const { event, index } of deltas) {
			expect(index).toBeLessThan(at);
			expect(event.name).toBe(call.name);
		}
		if (deltas.length > 0) expect(deltas.map(({ event }) => event.delta).join("")).toBe(call.arguments);
	}
}

function checkUsage(run: Run, fact: Expected): void {
	const reports = ofType(run.events, "usage").map((event) => event.usage);
	if (fact.usage === null) {
		expect(reports).toEqual([]);
		return;
	}
	expect(reports).toHaveLength(1);
	const usage = reports[0]!;
	expect(usage).toMatchObject({
		input: fact.usage.inputTokens,
		output: fact.usage.outputTokens,
		total: fact.usage.inputTokens + fact.usage.outputTokens,
	});
	if (fact.usage.cacheReadTokens !== undefined) expect(usage.cacheRead).toBe(fact.usage.cacheReadTokens);
	if (fact.usage.cacheWriteTokens !== undefined) expect(usage.cacheWrite).toBe(fact.usage.cacheWriteTokens);
	if (fact.usage.reasoningTokens !== undefined) expect(usage.reasoning).toBe(fact.usage.reasoningTokens);
}

/** Reasoning deltas join to the reasoning items' text (every provider). */
function checkReasoningText(run: Run, expected: string): void {
	expect(
		ofType(run.events, "reasoning_delta")
			.map((event) => event.delta)
			.join(""),
	).toBe(expected);
	expect(
		ofType(run.events, "reasoning")
			.map((event) => event.text)
			.join(""),
	).toBe(expected);
}

function checkAnthropicReasoning(run: Run, expected: AnthropicThinking[]): void {
	const items = ofType(run.events, "reasoning").map((event) => ({
		text: event.text,
		signature: meta(event.providerMetadata, "anthropic", "signature"),
	}));
	expect(items).toEqual(expected);
	checkReasoningText(run, expected.map((item) => item.text).join(""));
}

function checkResponsesReasoning(run: Run, file: string, expected: ResponsesReasoning[]): void {
	const items = ofType(run.events, "reasoning");
	const encrypted = items.map((event) => meta(event.providerMetadata, "openai", "reasoningEncryptedContent"));
	expect(
		items.map((event, index) => ({
			summary: event.text,
			encryptedContent: typeof encrypted[index] === "string" && encrypted[index] !== "",
		})),
	).toEqual(expected);
	// The encrypted content differs between output_item.added and .done: the .done one is final.
	const final = responsesEncryptedContent(file);
	items.forEach((event, index) => {
		const itemId = meta(event.providerMetadata, "openai", "itemId");
		if (expected[index]!.encryptedContent) expect(encrypted[index]).toBe(final.get(String(itemId)));
	});
	checkReasoningText(run, expected.map((item) => item.summary).join(""));
}

function checkGoogleReasoning(run: Run, file: string, expected: GoogleReasoning): void {
	checkReasoningText(run, expected.thoughtText);
	const calls = ofType(run.events, "tool_call");
	for (const signature of expected.thoughtSignatures) {
		const name = /^functionCall (.+)$/.exec(signature.part)?.[1];
		if (name === undefined) continue; // the text-part signature has its own (gap) test
		const call = calls.find((event) => event.name === name);
		const wire = geminiSignature(file, signature.line);
		expect(wire).toHaveLength(signature.length);
		expect(meta(call?.providerMetadata, "google", "thoughtSignature")).toBe(wire);
	}
}

function checkReasoning(run: Run, file: string, fact: Expected): void {
	const provider = KIND[fact.provider];
	if (provider === "anthropic") checkAnthropicReasoning(run, fact.reasoning as AnthropicThinking[]);
	else if (provider === "openai") checkResponsesReasoning(run, file, fact.reasoning as ResponsesReasoning[]);
	else if (provider === "google") checkGoogleReasoning(run, file, fact.reasoning as GoogleReasoning);
	else checkReasoningText(run, fact.reasoning as string);
}

function reasoningName(fact: Expected): string {
	const provider = KIND[fact.provider];
	if (provider === "anthropic") {
		const blocks = fact.reasoning as AnthropicThinking[];
		return blocks.length === 0 ? "no thinking" : "thinking text and signature in the reasoning's providerMetadata";
	}
	if (provider === "openai") {
		const items = fact.reasoning as ResponsesReasoning[];
		if (items.length === 0) return "no reasoning items";
		return `reasoning ${items.map((item) => `${abbreviate(item.summary)} (encrypted content: ${item.encryptedContent ? "yes" : "no"})`).join(", ")}`;
	}
	if (provider === "google") {
		const google = fact.reasoning as GoogleReasoning;
		const signed = google.thoughtSignatures.filter((entry) => entry.part.startsWith("functionCall"));
		const signatures = signed.map((entry) => `; ${entry.part}'s thoughtSignature on its tool call`).join("");
		return `thought text ${abbreviate(google.thoughtText)}${signatures}`;
	}
	return `reasoning_content ${abbreviate(fact.reasoning as string)}`;
}

/**
 * Facts that cannot hold with the AI SDK providers we run on; for these files the test checks what
 * we do instead, and says why.
 */
const LIMITS: Record<string, (getRun: () => Run, file: string) => void> = {
	// @ai-sdk/openai 3.0.141 keys reasoning state by item_id; Copilot sends a new item_id on every
	// event, so the provider's stream throws at the first reasoning_summary_part.done (AI SDK
	// releases after this fixture was added correlate by output_index instead).
	"github-copilot-id-rotation.1": (getRun, file) => {
		it(`${shortName(file)}: rotating item ids break @ai-sdk/openai 3.0.141's parser: a fatal error outcome, never a throw`, () => {
			const run = getRun();
			expect(run.thrown).toBeUndefined();
			expect(run.requests.map((request) => request.path)).toEqual([PATH.openai]);
			expect(ofType(run.events, "outcome")).toHaveLength(1);
			expect(outcomeOf(run.events)).toMatchObject({ status: "error", failure: { class: "fatal" } });
		});
		it(`${shortName(file)}: the reasoning summary delta before the failure streams; no text, usage or finish after it`, () => {
			const run = getRun();
			expect(run.events.map((event) => event.type)).toEqual(["reasoning_delta", "outcome"]);
			expect(ofType(run.events, "reasoning_delta")[0]?.delta).toBe("**Counting character occurrences**");
		});
	},
};

/** Facts we do not keep, checked as what we do so that keeping them later fails here on purpose. */
function registerGaps(file: string, fact: Expected, getRun: () => Run): void {
	if (KIND[fact.provider] !== "google") return;
	for (const signature of (fact.reasoning as GoogleReasoning).thoughtSignatures) {
		if (signature.part.startsWith("functionCall")) continue;
		// A text event has no providerMetadata (ModelEvent), and an assistant_text message has none to
		// replay it with, so a signature Gemini puts on a text part is dropped.
		it(`${shortName(file)}: known gap: the thoughtSignature on the ${signature.part} (line ${signature.line}) reaches no event`, () => {
			const wire = geminiSignature(file, signature.line);
			expect(wire).toHaveLength(signature.length);
			expect(JSON.stringify(getRun().events)).not.toContain(wire);
		});
	}
}

function registerFacts(file: string, fact: Expected, getRun: () => Run): void {
	const provider = KIND[fact.provider]!;
	it(factName(file, "contract", `${PATH[provider]}: never throws, ends in exactly one outcome`), () =>
		checkContract(getRun(), provider),
	);
	it(factName(file, "outcome", outcomeName(fact)), () => checkOutcome(getRun(), fact));
	it(factName(file, "text", `text ${abbreviate(fact.text)} = text deltas joined = complete text items joined`), () =>
		checkText(getRun(), fact),
	);
	it(factName(file, "toolCalls", toolCallsName(fact.toolCalls)), () => checkToolCalls(getRun(), fact));
	it(factName(file, "usage", usageName(fact.usage)), () => checkUsage(getRun(), fact));
	it(factName(file, "reasoning", reasoningName(fact)), () => checkReasoning(getRun(), file, fact));
	registerGaps(file, fact, getRun);
}

/** One replay of `file` and the checks of its facts, in a describe block of its own. */
function describeReplay(file: string, fact: (typeof EXPECTED)[string], variant: Variant, seed: number): void {
	describe(`${file} (${fact.sseConvention}, ${variant.name})`, () => {
		let run: Run | undefined;
		beforeAll(async () => {
			run = await replay(file, variant, seed);
		});
		const getRun = (): Run => {
			if (run === undefined) throw new Error("the replay did not run");
			return run;
		};
		const limit = LIMITS[shortName(file)];
		if (limit === undefined) registerFacts(file, fact, getRun);
		else limit(getRun, file);
	});
}

/** The README asks for one more replay of the Google files, with "\r\n" line endings. */
const CRLF: Variant = { name: "\\r\\n line endings, split writes", splitWrites: true, lineEnding: "\r\n" };

Object.keys(EXPECTED).forEach((file, index) => {
	const fact = EXPECTED[file]!;
	// A seed per file, so that the files are cut at different offsets (and reproducibly).
	for (const variant of VARIANTS) describeReplay(file, fact, variant, index + 1);
	if (fact.sseConvention === "data-only") describeReplay(file, fact, CRLF, index + 101);
});

// ── two-request sequences (README "Multi-request sequences") ─────────────────────────────────

/** The assistant messages a stream made, as the engine would keep them. */
function assistantMessages(events: ModelEvent[]): ModelMessage[] {
	return events.flatMap((event): ModelMessage[] => {
		if (event.type === "text") return [assistantText(event.text)];
		if (event.type === "reasoning") return [reasoning(event.text, event.providerMetadata)];
		if (event.type !== "tool_call") return [];
		const call = toolCall(event.callId, event.name, event.arguments);
		if (event.providerMetadata !== undefined) call.providerMetadata = event.providerMetadata;
		return [call];
	});
}

describe("recorded two-request sequences", () => {
	it("openai-issue-11239.1 → .2: the call and its output go back under call_id, then the answer streams", async () => {
		const server = await FakeProviderServer.start();
		try {
			for (const step of [1, 2]) {
				server.replayRecorded(fixtureLines(`openai-responses__openai-issue-11239.${step}.chunks.txt`), "event-named");
			}
			const model = modelOn(server, "openai");
			const first = await collect(model, [userText("hi")]);
			const history = [userText("hi"), ...assistantMessages(first.events)];
			const call = ofType(first.events, "tool_call")[0]!;
			const second = await collect(model, [...history, toolCallOutput(call, "blue-42")]);

			const input = (server.requests[1]!.body as JsonObject).input as JsonObject[];
			expect(input).toContainEqual(
				expect.objectContaining({ type: "function_call", call_id: "call_wMUhph1s1bedjPJraJvGw62X" }),
			);
			expect(input).toContainEqual(
				expect.objectContaining({
					type: "function_call_output",
					call_id: "call_wMUhph1s1bedjPJraJvGw62X",
					output: "blue-42",
				}),
			);
			expect(second.thrown).toBeUndefined();
			expect(
				ofType(second.events, "text")
					.map((event) => event.text)
					.join(""),
			).toBe(EXPECTED["openai-responses__openai-issue-11239.2.chunks.txt"]!.text);
			expect(outcomeOf(second.events)).toEqual({ status: "ok", finishReason: "stop" });
		} finally {
			await server.close();
		}
	});

	it("anthropic-issue-5942-cache-write → cache-read: the second request's breakpoint is where the first prompt ended", async () => {
		const server = await FakeProviderServer.start();
		try {
			for (const step of ["write", "read"]) {
				server.replayRecorded(fixtureLines(`anthropic__anthropic-issue-5942-cache-${step}.chunks.txt`), "event-named");
			}
			const model = modelOn(server, "anthropic");
			const first = await collect(model, [userText("hi")]);
			const second = await collect(model, [userText("hi"), ...assistantMessages(first.events), userText("again")]);

			const messages = (server.requests[1]!.body as JsonObject).messages as JsonObject[];
			const lastPart = (message: JsonObject) => (message.content as JsonObject[]).at(-1);
			// The first request ended at "hi"; the second marks it, so it reads what the first wrote.
			expect(lastPart(messages[0]!)).toMatchObject({ text: "hi", cache_control: { type: "ephemeral" } });
			expect(ofType(first.events, "usage")[0]?.usage).toMatchObject({ cacheWrite: 16060, cacheRead: 0 });
			expect(ofType(second.events, "usage")[0]?.usage).toMatchObject({ cacheWrite: 0, cacheRead: 16060 });
		} finally {
			await server.close();
		}
	});
});

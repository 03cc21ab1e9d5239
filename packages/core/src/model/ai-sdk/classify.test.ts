import {
	APICallError,
	EmptyResponseBodyError,
	InvalidResponseDataError,
	JSONParseError,
	LoadAPIKeyError,
	TypeValidationError,
} from "@ai-sdk/provider";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ModelFailure } from "../failure.js";
import { classifyFailure, withoutSecrets } from "./classify.js";

/**
 * docs/architecture.md §3: the four failure classes, over the three shapes providers fail in. Every input here is
 * built the way the AI SDK providers build it (see the fault matrix for the same over real sockets).
 */

type Expected = Partial<ModelFailure> & Pick<ModelFailure, "class">;

interface Case {
	name: string;
	error: unknown;
	expected: Expected;
}

const URL = "https://api.example.test/v1/chat/completions";

function apiCallError(
	statusCode: number | undefined,
	body: unknown,
	options: { headers?: Record<string, string>; cause?: unknown; message?: string; isRetryable?: boolean } = {},
): APICallError {
	const responseBody = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
	return new APICallError({
		message: options.message ?? `request failed with status ${statusCode}`,
		url: URL,
		requestBodyValues: {},
		...(statusCode === undefined ? {} : { statusCode }),
		...(responseBody === undefined ? {} : { responseBody }),
		responseHeaders: { "content-type": "application/json", ...options.headers },
		...(options.cause === undefined ? {} : { cause: options.cause }),
		isRetryable: options.isRetryable ?? (statusCode === undefined || statusCode === 429 || statusCode >= 500),
	});
}

/** OpenAI's error body (both APIs). */
function openai(type: string, code: string | null, message: string) {
	return { error: { message, type, param: null, code } };
}

/** Anthropic's error body. */
function anthropic(type: string, message: string) {
	return { type: "error", error: { type, message }, request_id: "req_011" };
}

/** A Node system error as undici and `net` report it. */
function systemError(message: string, code: string): Error {
	return Object.assign(new Error(message), { code });
}

const QUOTA = "You exceeded your current quota, please check your plan and billing details.";
const USER_QUOTA = "You exceeded your current usage quota for this user.";
const PROMPT_TOO_LONG = "prompt is too long: 210000 tokens > 200000 maximum";
const OPENAI_OVERFLOW =
	"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.";

function check(failure: ModelFailure, expected: Expected): void {
	expect(failure).toMatchObject(expected);
	expect(typeof failure.message).toBe("string");
	expect(failure.contextOverflow ?? false).toBe(expected.contextOverflow ?? false);
	if (expected.retryAfterMs === undefined) expect(failure.retryAfterMs).toBeUndefined();
}

describe("a thrown APICallError", () => {
	const cases: Case[] = [
		{
			name: "400 context overflow (Google)",
			error: apiCallError(400, {
				error: {
					code: 400,
					message: "The input token count (1189784) exceeds the maximum number of tokens allowed (1048576).",
					status: "INVALID_ARGUMENT",
				},
			}),
			expected: { class: "fatal", status: 400, contextOverflow: true },
		},
		// auth
		{
			name: "401 invalid_api_key (OpenAI)",
			error: apiCallError(401, openai("invalid_request_error", "invalid_api_key", "Incorrect API key provided.")),
			expected: { class: "auth", status: 401 },
		},
		{
			name: "401 authentication_error (Anthropic)",
			error: apiCallError(401, anthropic("authentication_error", "invalid x-api-key")),
			expected: { class: "auth", status: 401 },
		},
		{
			name: "403 unsupported region (OpenAI)",
			error: apiCallError(
				403,
				openai("invalid_request_error", "unsupported_country_region_territory", "Country not supported"),
			),
			expected: { class: "auth", status: 403 },
		},
		{
			name: "403 permission_error (Anthropic)",
			error: apiCallError(403, anthropic("permission_error", "Your API key does not have permission.")),
			expected: { class: "auth", status: 403 },
		},
		// timeout
		{
			name: "408 request timeout, plain-text body from a proxy",
			error: apiCallError(408, "Request Timeout"),
			expected: { class: "timeout", status: 408 },
		},
		{
			name: "429 rate_limit_exceeded (OpenAI)",
			error: apiCallError(429, openai("requests", "rate_limit_exceeded", "Rate limit reached for m on requests.")),
			expected: { class: "timeout", status: 429, code: "rate_limit_exceeded" },
		},
		{
			name: "429 insufficient_user_quota (transient per-user quota)",
			error: apiCallError(429, openai("requests", "insufficient_user_quota", USER_QUOTA)),
			expected: { class: "timeout", status: 429, code: "insufficient_user_quota" },
		},
		{
			name: "500 api_error (Anthropic)",
			error: apiCallError(500, anthropic("api_error", "Internal server error")),
			expected: { class: "timeout", status: 500 },
		},
		{
			name: "502 bad gateway, HTML body",
			error: apiCallError(502, "<html><body><h1>502 Bad Gateway</h1></body></html>"),
			expected: { class: "timeout", status: 502 },
		},
		{
			name: "503 engine overloaded (OpenAI)",
			error: apiCallError(
				503,
				openai("server_error", null, "The engine is currently overloaded, please try again later."),
			),
			expected: { class: "timeout", status: 503 },
		},
		{
			name: "529 overloaded_error (Anthropic)",
			error: apiCallError(529, anthropic("overloaded_error", "Overloaded"), { message: "Overloaded" }),
			expected: { class: "timeout", status: 529, code: "overloaded_error" },
		},
		{
			name: "no status: connection refused",
			error: apiCallError(undefined, undefined, {
				message: "Cannot connect to API: connect ECONNREFUSED 127.0.0.1:1",
				cause: systemError("connect ECONNREFUSED 127.0.0.1:1", "ECONNREFUSED"),
			}),
			expected: { class: "timeout", code: "connection_refused", message: "connection refused" },
		},
		{
			name: "no status: an unknown host name (fatal at once: it will not start to resolve)",
			error: apiCallError(undefined, undefined, {
				message: "Cannot connect to API: getaddrinfo ENOTFOUND nowhere.invalid",
				cause: Object.assign(systemError("getaddrinfo ENOTFOUND nowhere.invalid", "ENOTFOUND"), {
					hostname: "nowhere.invalid",
				}),
			}),
			expected: { class: "fatal", code: "unknown_host", message: "unknown host nowhere.invalid" },
		},
		{
			// What provider-utils throws when the socket drops while the 200 body is read: the
			// response's status with the undici "terminated" TypeError as the cause.
			name: "status 200 with a dropped-socket cause (the SDK's wrapping of a mid-body drop)",
			error: apiCallError(200, undefined, {
				message: "Failed to process successful response",
				cause: new TypeError("terminated", { cause: systemError("other side closed", "UND_ERR_SOCKET") }),
				isRetryable: true,
			}),
			expected: { class: "timeout" },
		},
		// malformed
		{
			// @ai-sdk/anthropic turns an error in the first chunk into a synthetic 500; here that
			// error is the JSONParseError of a first event that did not parse.
			name: "synthetic 500 wrapping a first chunk that did not parse (@ai-sdk/anthropic)",
			error: apiCallError(
				500,
				{ name: "AI_JSONParseError", cause: {}, text: '{"type":"message_start","message":{' },
				{
					message: 'JSON parsing failed: Text: {"type":"message_start","message":{.\nError message: Unexpected end',
					isRetryable: false,
				},
			),
			expected: { class: "malformed" },
		},
		// fatal
		{
			name: "409 conflict (an other 4xx)",
			error: apiCallError(409, openai("invalid_request_error", null, "Conflict.")),
			expected: { class: "fatal", status: 409 },
		},
		{
			name: "429 insufficient_quota (billing)",
			error: apiCallError(429, openai("insufficient_quota", "insufficient_quota", QUOTA)),
			expected: { class: "fatal", status: 429, code: "insufficient_quota" },
		},
		{
			name: "400 bad request",
			error: apiCallError(
				400,
				openai("invalid_request_error", null, "Invalid value for 'temperature': expected a number."),
			),
			expected: { class: "fatal", status: 400 },
		},
		{
			name: "404 model_not_found",
			error: apiCallError(404, openai("invalid_request_error", "model_not_found", "The model `m` does not exist.")),
			expected: { class: "fatal", status: 404 },
		},
		{
			name: "400 context_length_exceeded (OpenAI)",
			error: apiCallError(400, openai("invalid_request_error", "context_length_exceeded", OPENAI_OVERFLOW)),
			expected: { class: "fatal", status: 400, code: "context_length_exceeded", contextOverflow: true },
		},
		{
			name: "400 prompt is too long (Anthropic)",
			error: apiCallError(400, anthropic("invalid_request_error", PROMPT_TOO_LONG)),
			expected: { class: "fatal", status: 400, contextOverflow: true },
		},
	];

	it.each(cases)("$name → $expected.class", ({ error, expected }) => {
		check(classifyFailure(error), expected);
	});

	it("a missing key (LoadAPIKeyError) → auth", () => {
		const error = new LoadAPIKeyError({
			message: "OpenAI API key is missing. Pass it using the 'apiKey' parameter or the OPENAI_API_KEY variable.",
		});
		check(classifyFailure(error), { class: "auth" });
	});
});

describe("retry-after on a thrown APICallError", () => {
	const NOW = Date.parse("2026-03-02T10:00:00Z");
	beforeEach(() => {
		vi.useFakeTimers({ toFake: ["Date"] });
		vi.setSystemTime(NOW);
	});
	afterEach(() => {
		vi.useRealTimers();
	});

	const limited = (headers: Record<string, string>) =>
		apiCallError(429, anthropic("rate_limit_error", "Number of requests has exceeded your rate limit."), { headers });

	const headerCases: { name: string; headers: Record<string, string>; retryAfterMs: number }[] = [
		{ name: "retry-after in seconds", headers: { "retry-after": "7" }, retryAfterMs: 7_000 },
		{
			name: "retry-after as an HTTP date",
			headers: { "retry-after": "Mon, 02 Mar 2026 10:00:30 GMT" },
			retryAfterMs: 30_000,
		},
		{
			name: "retry-after as an HTTP date in the past",
			headers: { "retry-after": "Mon, 02 Mar 2026 09:59:00 GMT" },
			retryAfterMs: 0,
		},
		{ name: "retry-after-ms", headers: { "retry-after-ms": "1500" }, retryAfterMs: 1_500 },
		{
			name: "retry-after-ms before retry-after",
			headers: { "retry-after-ms": "1500", "retry-after": "2" },
			retryAfterMs: 1_500,
		},
	];

	it.each(headerCases)("429 with $name → timeout, retryAfterMs $retryAfterMs", ({ headers, retryAfterMs }) => {
		check(classifyFailure(limited(headers)), { class: "timeout", status: 429, retryAfterMs });
	});

	it("an unreadable retry-after is ignored", () => {
		check(classifyFailure(limited({ "retry-after": "soon" })), { class: "timeout", status: 429 });
	});

	it("retry-after on a 503 → timeout with retryAfterMs", () => {
		const error = apiCallError(503, openai("server_error", null, "Service unavailable."), {
			headers: { "retry-after": "3" },
		});
		check(classifyFailure(error), { class: "timeout", status: 503, retryAfterMs: 3_000 });
	});
});

describe("an error stream part", () => {
	const cases: Case[] = [
		// Anthropic: the envelope of `event: error`, and its inner object as @ai-sdk/anthropic emits it.
		{
			name: "Anthropic overloaded_error envelope",
			error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
			expected: { class: "timeout", code: "overloaded_error" },
		},
		{
			name: "Anthropic overloaded_error (the inner object, as the SDK emits it)",
			error: { type: "overloaded_error", message: "Overloaded" },
			expected: { class: "timeout", code: "overloaded_error" },
		},
		{
			name: "Anthropic api_error",
			error: { type: "api_error", message: "Internal server error" },
			expected: { class: "timeout", code: "api_error" },
		},
		{
			name: "Anthropic rate_limit_error",
			error: { type: "rate_limit_error", message: "Number of requests has exceeded your rate limit." },
			expected: { class: "timeout" },
		},
		{
			name: "Anthropic authentication_error",
			error: { type: "authentication_error", message: "invalid x-api-key" },
			expected: { class: "auth" },
		},
		{
			name: "Anthropic prompt is too long",
			error: { type: "invalid_request_error", message: PROMPT_TOO_LONG },
			expected: { class: "fatal", contextOverflow: true },
		},
		{
			name: "Anthropic invalid_request_error",
			error: { type: "invalid_request_error", message: "messages: text content blocks must be non-empty" },
			expected: { class: "fatal" },
		},
		// OpenAI: flat `{type:"error", code, message}` and nested `{error:{…}}`.
		{
			name: "OpenAI insufficient_quota, flat",
			error: { type: "error", code: "insufficient_quota", message: QUOTA, param: null },
			expected: { class: "fatal", code: "insufficient_quota" },
		},
		{
			name: "OpenAI insufficient_quota, nested",
			error: { error: { type: "insufficient_quota", code: "insufficient_quota", message: QUOTA, param: null } },
			expected: { class: "fatal", code: "insufficient_quota" },
		},
		{
			name: "OpenAI insufficient_user_quota, flat",
			error: { type: "error", code: "insufficient_user_quota", message: USER_QUOTA, param: null },
			expected: { class: "timeout", code: "insufficient_user_quota" },
		},
		{
			name: "OpenAI insufficient_user_quota, nested",
			error: { error: { type: "requests", code: "insufficient_user_quota", message: USER_QUOTA, param: null } },
			expected: { class: "timeout", code: "insufficient_user_quota" },
		},
		{
			name: "OpenAI Responses `error` event with a nested server_error",
			error: {
				type: "error",
				sequence_number: 4,
				error: { type: "server_error", code: "server_error", message: "An error occurred.", param: null },
			},
			expected: { class: "timeout", code: "server_error" },
		},
		{
			name: "OpenAI chat error chunk, server_error with a null code",
			error: {
				message: "The server had an error while processing your request.",
				type: "server_error",
				param: null,
				code: null,
			},
			expected: { class: "timeout" },
		},
		{
			name: "OpenAI rate_limit_exceeded, flat",
			error: { type: "error", code: "rate_limit_exceeded", message: "Rate limit reached.", param: null },
			expected: { class: "timeout" },
		},
		{
			name: "OpenAI context_length_exceeded, flat",
			error: { type: "error", code: "context_length_exceeded", message: OPENAI_OVERFLOW, param: null },
			expected: { class: "fatal", code: "context_length_exceeded", contextOverflow: true },
		},
		{
			name: "OpenAI invalid_prompt, flat",
			error: { type: "error", code: "invalid_prompt", message: "Invalid prompt.", param: null },
			expected: { class: "fatal", code: "invalid_prompt" },
		},
		// An OpenAI-compatible server (vLLM, LiteLLM, a proxy) that puts the HTTP status in `code`.
		{
			name: "a 503 in the error part's numeric code",
			error: { error: { message: "Service Unavailable", code: 503 } },
			expected: { class: "timeout", status: 503 },
		},
		{
			name: "a 429 in the error part's code, as a string",
			error: { error: { message: "Too many requests", code: "429" } },
			expected: { class: "timeout", status: 429 },
		},
		{
			name: "a 500 with a type of its own",
			error: { error: { type: "InternalServerError", message: "boom", code: 500 } },
			expected: { class: "timeout", status: 500 },
		},
		{
			name: "a 429 whose message speaks of tokens is a rate limit, not an overflow",
			error: { error: { message: "Too many tokens per minute; try again in 2s", code: 429 } },
			expected: { class: "timeout", status: 429 },
		},
		{
			name: "a 400 in the error part's code stays fatal",
			error: { error: { message: "bad request", code: 400 } },
			expected: { class: "fatal", status: 400 },
		},
		{
			name: "a 401 in the error part's code",
			error: { error: { message: "invalid key", code: 401 } },
			expected: { class: "auth" },
		},
		{
			name: "llama.cpp's context overflow",
			error: {
				error: {
					code: 400,
					message: "the request exceeds the available context size, try increasing it",
					type: "exceed_context_size_error",
				},
			},
			expected: { class: "fatal", contextOverflow: true },
		},
		// Google: `{error: {code, message, status}}`, the code an HTTP status.
		{
			name: "Google's context overflow",
			error: {
				error: {
					code: 400,
					message: "The input token count (1189784) exceeds the maximum number of tokens allowed (1048576).",
					status: "INVALID_ARGUMENT",
				},
			},
			expected: { class: "fatal", contextOverflow: true },
		},
		{
			name: "Google RESOURCE_EXHAUSTED",
			error: { error: { code: 429, message: "Resource has been exhausted", status: "RESOURCE_EXHAUSTED" } },
			expected: { class: "timeout", code: "RESOURCE_EXHAUSTED" },
		},
		{
			name: "Google UNAVAILABLE",
			error: { error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } },
			expected: { class: "timeout" },
		},
		// What the SDK itself puts in an error part.
		{
			name: "a chunk that did not parse (JSONParseError)",
			error: new JSONParseError({ text: '{"id":"chatcmpl-1","object":', cause: new SyntaxError("Unexpected end") }),
			expected: { class: "malformed" },
		},
		{
			name: "a chunk that failed validation (TypeValidationError)",
			error: new TypeValidationError({ value: { id: 1 }, cause: new Error("expected string") }),
			expected: { class: "malformed" },
		},
		{
			// @ai-sdk/openai-compatible's error part when the stream ends without a finish_reason.
			name: "stream ended without a finish reason (InvalidResponseDataError)",
			error: new InvalidResponseDataError({
				data: undefined,
				message: "Response stream ended without a finish reason.",
			}),
			expected: { class: "malformed" },
		},
	];

	it.each(cases)("$name → $expected.class", ({ error, expected }) => {
		check(classifyFailure(error), expected);
	});
});

describe("a rejected stream", () => {
	const cases: Case[] = [
		{
			name: 'socket drop: TypeError "terminated" with an UND_ERR_SOCKET cause',
			error: new TypeError("terminated", { cause: systemError("other side closed", "UND_ERR_SOCKET") }),
			expected: { class: "timeout" },
		},
		{
			name: 'network TypeError "fetch failed" with an ECONNRESET cause',
			error: new TypeError("fetch failed", { cause: systemError("read ECONNRESET", "ECONNRESET") }),
			expected: { class: "timeout" },
		},
		{
			name: 'network TypeError "fetch failed" with an ECONNREFUSED cause',
			error: new TypeError("fetch failed", { cause: systemError("connect ECONNREFUSED 127.0.0.1:1", "ECONNREFUSED") }),
			expected: { class: "timeout", code: "connection_refused" },
		},
		{
			name: "a bare ECONNRESET",
			error: systemError("read ECONNRESET", "ECONNRESET"),
			expected: { class: "timeout" },
		},
		{
			name: "JSONParseError",
			error: new JSONParseError({
				text: '{"type":"message_delta","delta":{',
				cause: new SyntaxError("Unexpected end"),
			}),
			expected: { class: "malformed" },
		},
		{
			name: 'a plain Error "Overloaded"',
			error: new Error("Overloaded"),
			expected: { class: "timeout" },
		},
		{
			name: "a string saying the server is overloaded",
			error: "the server is overloaded, try again",
			expected: { class: "timeout" },
		},
		{
			name: "an empty response body (EmptyResponseBodyError)",
			error: new EmptyResponseBodyError(),
			expected: { class: "malformed" },
		},
	];

	it.each(cases)("$name → $expected.class", ({ error, expected }) => {
		check(classifyFailure(error), expected);
	});
});

describe("an unknown thrown value", () => {
	const circular: Record<string, unknown> = { name: "loop" };
	circular.self = circular;

	it.each([
		{ name: "a plain Error", error: new Error("something odd") },
		{ name: "a string", error: "boom" },
		{ name: "a number", error: 42 },
		{ name: "null", error: null },
		{ name: "undefined", error: undefined },
		{ name: "an object that is no provider error", error: { foo: 1 } },
		{ name: "a circular object", error: circular },
		{ name: "a bigint", error: 10n },
	])("$name → fatal, with a string message, without throwing", ({ error }) => {
		check(classifyFailure(error), { class: "fatal" });
	});
});

describe("the URL an unreachable model's error names", () => {
	it("keeps scheme, host, port and path; drops user, password, query and fragment", () => {
		expect(withoutSecrets("https://me:sk-123@proxy.example:8443/v1/?key=sk-456#frag")).toBe(
			"https://proxy.example:8443/v1/",
		);
		expect(withoutSecrets("not a url")).toBe("(a URL that does not parse)");
	});
});

import {
	APICallError,
	EmptyResponseBodyError,
	InvalidResponseDataError,
	JSONParseError,
	LoadAPIKeyError,
	TypeValidationError,
} from "@ai-sdk/provider";
import { errorMessage } from "../../messages/error-message.js";
import type { FailureClass, ModelFailure } from "../failure.js";
import { EmptyStreamEndError } from "./stream-parts.js";

/** `ModelFailure.code` of a server that refused the connection, and of a host name that does not resolve. */
export const CONNECTION_REFUSED = "connection_refused";
export const UNKNOWN_HOST = "unknown_host";
/** `ModelFailure.code` of a port fetch refuses to connect to (the Fetch standard's "bad port" list: 6000, 6665…). */
export const BAD_PORT = "bad_port";

/** `url` without what may be a secret: user and password, the query, the fragment. */
export function withoutSecrets(url: string): string {
	try {
		const where = new URL(url);
		where.username = "";
		where.password = "";
		where.search = "";
		where.hash = "";
		return where.href;
	} catch {
		return "(a URL that does not parse)";
	}
}

/**
 * The one classification of model failures (docs/architecture.md §3), before any retry heuristic, over the three
 * shapes providers fail in: a thrown APICallError (HTTP status), an `error` stream part (the
 * provider's error object inside a 200 stream), and a rejected stream (socket or parse failure).
 *
 * auth: 401, 403, a missing key, an authentication/permission error.
 * timeout: network failures, 408, 429, 5xx, overloaded, `insufficient_user_quota`.
 * malformed: JSON that does not parse or validate, a stream that ends without its finish.
 * fatal: any other 4xx, billing `insufficient_quota`, context overflow (flagged), anything unknown.
 */
export function classifyFailure(error: unknown): ModelFailure {
	if (APICallError.isInstance(error)) return fromApiCall(error);
	if (LoadAPIKeyError.isInstance(error)) return { class: "auth", message: error.message };
	if (
		JSONParseError.isInstance(error) ||
		TypeValidationError.isInstance(error) ||
		EmptyResponseBodyError.isInstance(error) ||
		InvalidResponseDataError.isInstance(error)
	) {
		return { class: "malformed", message: error.message };
	}
	if (error instanceof EmptyStreamEndError) return { class: "malformed", message: error.message };
	const providerError = providerErrorObject(error);
	if (providerError !== undefined) return fromProviderError(providerError);
	const unreachable = connectionFailure(error);
	if (unreachable !== undefined) return unreachable;
	if (isNetworkFailure(error)) return { class: "timeout", message: `connection failed: ${errorMessage(error)}` };
	const message = errorMessage(error);
	// A provider that says it is overloaded only in words (a plain Error, a string) is as transient
	// as one that says so with a status or an error type.
	return { class: OVERLOADED_WORDS.test(message) ? "timeout" : "fatal", message };
}

const OVERLOADED_WORDS = /\boverloaded\b/i;

function fromApiCall(error: APICallError): ModelFailure {
	const status = error.statusCode;
	const body = parseJson(error.responseBody);
	// @ai-sdk/anthropic reads the first chunk itself and reports a parse failure there as a
	// made-up 500 whose body is the serialized JSONParseError.
	if (isSerializedParseError(body)) return { class: "malformed", message: error.message };
	const detail = providerErrorObject(body) ?? providerErrorObject(error.data);
	const code = detail?.code ?? detail?.type;
	const message = detail?.message ?? error.message;
	const failure: ModelFailure = {
		class: "fatal",
		message,
		...(status === undefined ? {} : { status }),
		...(code ? { code } : {}),
	};
	const retryAfterMs = retryAfter(error.responseHeaders);
	if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
	const unreachable = status === undefined ? connectionFailure(error.cause) : undefined;
	if (unreachable !== undefined) return unreachable;
	if (status === undefined || status < 400) {
		// No response at all, or a successful one that broke while it was read (a dropped socket
		// surfaces as "Failed to process successful response" with the network error as its cause).
		failure.class = isParseFailure(error.cause) ? "malformed" : "timeout";
		return failure;
	}
	failure.class = classForStatus(status, code, message);
	if (failure.class === "fatal" && isContextOverflow(message, code)) failure.contextOverflow = true;
	return failure;
}

function classForStatus(status: number, code: string | undefined, message: string): FailureClass {
	if (code === "insufficient_quota") return "fatal"; // billing: waiting will not help
	if (code === "insufficient_user_quota") return "timeout"; // transient per-user quota
	if (status === 401 || status === 403) return "auth";
	if (status === 408 || status === 429 || status >= 500) return "timeout";
	if (/overloaded/i.test(message)) return "timeout";
	return "fatal";
}

interface ProviderErrorObject {
	type?: string;
	code?: string;
	message?: string;
	/** An HTTP status the provider put in the error itself (`code: 503`; Google's `code` is always one). */
	httpStatus?: number;
	/** Google's canonical status name (`RESOURCE_EXHAUSTED`, `UNAVAILABLE`, …). */
	status?: string;
}

/** The `{type, code, message}` inside OpenAI's `{error: …}`, Anthropic's `{type:"error", error: …}`, or an error part. */
function providerErrorObject(value: unknown): ProviderErrorObject | undefined {
	if (typeof value !== "object" || value === null || value instanceof Error) return undefined;
	const record = value as Record<string, unknown>;
	const inner =
		typeof record.error === "object" && record.error !== null ? (record.error as Record<string, unknown>) : record;
	const type = typeof inner.type === "string" ? inner.type : undefined;
	const code = typeof inner.code === "string" && !/^\d{3}$/.test(inner.code) ? inner.code : undefined;
	const message = typeof inner.message === "string" ? inner.message : undefined;
	const numeric = typeof inner.code === "number" ? inner.code : Number(inner.code);
	const httpStatus = Number.isInteger(numeric) && numeric >= 400 && numeric < 600 ? numeric : undefined;
	const status = typeof inner.status === "string" ? inner.status : undefined;
	if (type === undefined && code === undefined && message === undefined && httpStatus === undefined) return undefined;
	return {
		...(type === undefined ? {} : { type }),
		...(code === undefined ? {} : { code }),
		...(message === undefined ? {} : { message }),
		...(httpStatus === undefined ? {} : { httpStatus }),
		...(status === undefined ? {} : { status }),
	};
}

function fromProviderError(detail: ProviderErrorObject): ModelFailure {
	const code = detail.code ?? detail.type ?? detail.status;
	const message = detail.message ?? code ?? "error";
	const base = {
		message,
		...(code === undefined ? {} : { code }),
		...(detail.httpStatus === undefined ? {} : { status: detail.httpStatus }),
	};
	switch (code) {
		case "insufficient_quota":
			return { ...base, class: "fatal" };
		case "authentication_error":
		case "permission_error":
		case "invalid_api_key":
			return { ...base, class: "auth" };
		case "overloaded_error":
		case "api_error":
		case "rate_limit_error":
		case "rate_limit_exceeded":
		case "server_error":
		case "insufficient_user_quota":
		case "timeout":
		// Google's canonical names: quota or rate limit, and a server that is down or too slow.
		case "RESOURCE_EXHAUSTED":
		case "UNAVAILABLE":
		case "INTERNAL":
		case "DEADLINE_EXCEEDED":
			return { ...base, class: "timeout" };
		case "UNAUTHENTICATED":
		case "PERMISSION_DENIED":
			return { ...base, class: "auth" };
		default: {
			// A status inside the error part (an OpenAI-compatible server's `code: 503`) says what HTTP
			// would have, first: a 429's "too many tokens per minute" is a rate limit, not an overflow.
			const byStatus = detail.httpStatus === undefined ? undefined : classForStatus(detail.httpStatus, code, message);
			if (byStatus !== undefined && byStatus !== "fatal") return { ...base, class: byStatus };
			if (isContextOverflow(message, code)) return { ...base, class: "fatal", contextOverflow: true };
			if (byStatus !== undefined) return { ...base, class: byStatus };
			return { ...base, class: /overloaded|temporarily|try again/i.test(message) ? "timeout" : "fatal" };
		}
	}
}

/**
 * OpenAI's, Anthropic's, Google's ("The input token count (N) exceeds the maximum number of tokens
 * allowed (M)"), llama.cpp's ("exceeds the available context size") and others' wordings.
 */
const OVERFLOW =
	/context[_ ]length[_ ]exceeded|maximum context length|prompt is too long|too many tokens|exceeds the context window|input is too long|exceeds the maximum number of tokens|exceeds the available context size|context size has been exceeded/i;

function isContextOverflow(message: string, code: string | undefined): boolean {
	return code === "context_length_exceeded" || OVERFLOW.test(message);
}

function isSerializedParseError(body: unknown): boolean {
	const name = typeof body === "object" && body !== null ? (body as { name?: unknown }).name : undefined;
	return name === "AI_JSONParseError" || name === "AI_TypeValidationError";
}

function isParseFailure(cause: unknown): boolean {
	return JSONParseError.isInstance(cause) || TypeValidationError.isInstance(cause);
}

const NETWORK_CODES = new Set([
	"ECONNRESET",
	"ECONNREFUSED",
	"EPIPE",
	"ETIMEDOUT",
	"ENOTFOUND",
	"EAI_AGAIN",
	"UND_ERR_SOCKET",
]);

/**
 * The server could not be reached at all. A refused connection is a server that is not up (yet):
 * retryable, as a provider restarting is. A host name that does not resolve will not start to:
 * fatal at once. Either way the message says so, not "timeout"; the adapter adds which endpoint.
 */
function connectionFailure(error: unknown): ModelFailure | undefined {
	for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
		const { code, hostname } = e as { code?: unknown; hostname?: unknown };
		if (code === "ECONNREFUSED") return { class: "timeout", code: CONNECTION_REFUSED, message: "connection refused" };
		if (e.message === "bad port") {
			// Fetch refuses these ports before connecting: waiting will not help.
			return {
				class: "fatal",
				code: BAD_PORT,
				message: 'its port is one fetch refuses to connect to ("bad port", e.g. 6000 or 6665-6669); use another port',
			};
		}
		if (code === "ENOTFOUND") {
			const host = typeof hostname === "string" ? ` ${hostname}` : "";
			return { class: "fatal", code: UNKNOWN_HOST, message: `unknown host${host}` };
		}
	}
	return undefined;
}

/** fetch and undici report a dropped socket as a TypeError ("terminated", "fetch failed") with a coded cause. */
function isNetworkFailure(error: unknown): boolean {
	for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
		const code = (e as { code?: unknown }).code;
		if (typeof code === "string" && (NETWORK_CODES.has(code) || code.startsWith("UND_ERR"))) return true;
		if (/^(terminated|fetch failed|other side closed|socket hang up)$/i.test(e.message)) return true;
	}
	return false;
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
function retryAfter(headers: Record<string, string> | undefined): number | undefined {
	if (headers === undefined) return undefined;
	const ms = Number(headers["retry-after-ms"]);
	if (Number.isFinite(ms) && ms >= 0 && headers["retry-after-ms"] !== undefined) return ms;
	const value = headers["retry-after"];
	if (value === undefined) return undefined;
	const seconds = Number(value);
	if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function parseJson(text: string | undefined): unknown {
	if (text === undefined) return undefined;
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

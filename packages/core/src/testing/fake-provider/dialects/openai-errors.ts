import { fakeId } from "../reply.js";
import type { Fault } from "../types.js";
import type { ErrorResponse, RenderContext } from "../wire.js";

interface OpenAIErrorShape {
	type: string;
	code: string | null;
	message: string;
}

/** Typical bodies of the real API per status, so untouched faults read like the real thing. */
function defaults(status: number, model: string): OpenAIErrorShape {
	switch (status) {
		case 400:
			return { type: "invalid_request_error", code: null, message: "Invalid request." };
		case 401:
			return {
				type: "invalid_request_error",
				code: "invalid_api_key",
				message:
					"Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
			};
		case 403:
			return {
				type: "invalid_request_error",
				code: "unsupported_country_region_territory",
				message: "Country, region, or territory not supported",
			};
		case 404:
			return {
				type: "invalid_request_error",
				code: "model_not_found",
				message: `The model \`${model}\` does not exist or you do not have access to it.`,
			};
		case 429:
			return { type: "requests", code: "rate_limit_exceeded", message: `Rate limit reached for ${model} on requests.` };
		case 503:
			return {
				type: "server_error",
				code: null,
				message: "The engine is currently overloaded, please try again later.",
			};
		default:
			return status >= 500
				? {
						type: "server_error",
						code: null,
						message: "The server had an error while processing your request. Sorry about that!",
					}
				: { type: "invalid_request_error", code: null, message: `Request failed with status ${status}.` };
	}
}

const QUOTA_MESSAGE =
	"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.";

/** The `error` object of both OpenAI APIs, for HTTP errors and in-stream errors alike. */
export function openaiErrorObject(
	status: number,
	code: string | undefined,
	message: string | undefined,
	model: string,
): OpenAIErrorShape & { param: null } {
	const base = defaults(status, model);
	// The real API reports exhausted credit with the code as its type too.
	if (code === "insufficient_quota") return { type: code, code, message: message ?? QUOTA_MESSAGE, param: null };
	return { type: base.type, code: code ?? base.code, message: message ?? base.message, param: null };
}

export function openaiRequestId(context: RenderContext): string {
	return fakeId("req_", context.number);
}

export function openaiErrorResponse(fault: Extract<Fault, { kind: "status" }>, context: RenderContext): ErrorResponse {
	const headers: Record<string, string> = { "x-request-id": openaiRequestId(context) };
	if (fault.retryAfterSeconds !== undefined) headers["retry-after"] = String(fault.retryAfterSeconds);
	return {
		status: fault.status,
		headers,
		body: { error: openaiErrorObject(fault.status, fault.code, fault.message, context.model) },
	};
}

import { argumentsText, deltasOf, fakeId, finishesWithToolCalls, resolveUsage, splitText } from "../reply.js";
import type { FakeReply, Fault } from "../types.js";
import { type ErrorResponse, type RenderContext, type RenderedStream, typedEvent, type WireFormat } from "../wire.js";

type Payload = { type: string } & Record<string, unknown>;

/** Error types of the real API by status (https://docs.anthropic.com/en/api/errors). */
const ERROR_TYPES: Record<number, [type: string, message: string]> = {
	400: ["invalid_request_error", "Invalid request."],
	401: ["authentication_error", "invalid x-api-key"],
	402: ["billing_error", "Your credit balance is too low to access the Anthropic API."],
	403: ["permission_error", "Your API key does not have permission to use the specified resource."],
	404: ["not_found_error", "Not found."],
	413: ["request_too_large", "Request exceeds the maximum allowed number of bytes."],
	429: ["rate_limit_error", "Number of requests has exceeded your rate limit."],
	500: ["api_error", "Internal server error"],
	504: ["timeout_error", "Request timed out."],
	529: ["overloaded_error", "Overloaded"],
};

function errorObject(status: number, code: string | undefined, message: string | undefined) {
	const [baseType, baseMessage] =
		ERROR_TYPES[status] ??
		(status >= 500 ? ERROR_TYPES[500]! : ["invalid_request_error", `Request failed with status ${status}.`]);
	const type = code ?? baseType;
	const defaultMessage = Object.values(ERROR_TYPES).find(([known]) => known === type)?.[1] ?? baseMessage;
	return { type, message: message ?? defaultMessage };
}

/**
 * Anthropic Messages streaming: event-named SSE, the event name repeating the payload's `type`.
 *
 * Order: `message_start` (usage with the cache fields), content blocks (thinking with
 * `thinking_delta`s closed by a `signature_delta`, text with `text_delta`s, `tool_use` with an
 * empty `input_json_delta` and then the argument fragments, as the live API sends them), a
 * `ping` after the first block opens, `message_delta` (stop reason, final usage), `message_stop`.
 */
function render(reply: FakeReply, context: RenderContext): RenderedStream {
	const usage = resolveUsage(reply.usage);
	// The wire's `input_tokens` excludes cached tokens; `usage.input` counts them.
	const inputTokens = Math.max(0, usage.input - usage.cacheRead - usage.cacheWrite);
	const cacheFields = { cache_creation_input_tokens: usage.cacheWrite, cache_read_input_tokens: usage.cacheRead };
	const payloads: Payload[] = [
		{
			type: "message_start",
			message: {
				id: fakeId("msg_", context.number),
				type: "message",
				role: "assistant",
				model: context.model,
				content: [],
				stop_reason: null,
				stop_sequence: null,
				usage: {
					input_tokens: inputTokens,
					...cacheFields,
					cache_creation: { ephemeral_5m_input_tokens: usage.cacheWrite, ephemeral_1h_input_tokens: 0 },
					output_tokens: Math.min(1, usage.output),
					service_tier: "standard",
				},
			},
		},
	];
	let index = 0;
	const block = (start: Record<string, unknown>, deltas: Record<string, unknown>[]) => {
		payloads.push({ type: "content_block_start", index, content_block: start });
		if (index === 0) payloads.push({ type: "ping" });
		for (const delta of deltas) payloads.push({ type: "content_block_delta", index, delta });
		payloads.push({ type: "content_block_stop", index });
		index++;
	};

	const reasoning = deltasOf(reply.reasoning);
	if (reasoning !== undefined) {
		const signature = reply.reasoningSignature ?? fakeId("sig", context.number);
		block({ type: "thinking", thinking: "", signature: "" }, [
			...reasoning.map((thinking) => ({ type: "thinking_delta", thinking })),
			{ type: "signature_delta", signature },
		]);
	}
	const text = deltasOf(reply.text);
	if (text !== undefined) {
		block(
			{ type: "text", text: "" },
			text.map((piece) => ({ type: "text_delta", text: piece })),
		);
	}
	(reply.toolCalls ?? []).forEach((call, callIndex) => {
		const pieces = ["", ...splitText(argumentsText(call), call.chunks)];
		block(
			{ type: "tool_use", id: call.id ?? fakeId("toolu_", context.number, callIndex), name: call.name, input: {} },
			pieces.map((partial_json) => ({ type: "input_json_delta", partial_json })),
		);
	});
	if (index === 0) payloads.push({ type: "ping" });

	const finishStart = payloads.length;
	payloads.push({
		type: "message_delta",
		delta: { stop_reason: finishesWithToolCalls(reply) ? "tool_use" : "end_turn", stop_sequence: null },
		usage: {
			input_tokens: inputTokens,
			...cacheFields,
			output_tokens: usage.output,
			...(usage.hasReasoning ? { output_tokens_details: { thinking_tokens: usage.reasoning } } : {}),
		},
	});
	payloads.push({ type: "message_stop" });

	return {
		events: payloads.map(typedEvent),
		finishStart,
		streamError: (_sent, code, message) => [
			typedEvent({ type: "error", error: errorObject(529, code ?? "overloaded_error", message) }),
		],
	};
}

function requestId(context: RenderContext): string {
	return fakeId("req_", context.number);
}

function errorResponse(fault: Extract<Fault, { kind: "status" }>, context: RenderContext): ErrorResponse {
	const headers: Record<string, string> = { "request-id": requestId(context) };
	if (fault.retryAfterSeconds !== undefined) headers["retry-after"] = String(fault.retryAfterSeconds);
	return {
		status: fault.status,
		headers,
		body: {
			type: "error",
			error: errorObject(fault.status, fault.code, fault.message),
			request_id: requestId(context),
		},
	};
}

export const anthropicWire: WireFormat = {
	render,
	errorResponse,
	headers: (context) => ({ "request-id": requestId(context) }),
};

import { asObject } from "../json.js";
import {
	argumentsText,
	deltasOf,
	fakeId,
	finishesWithToolCalls,
	resolveUsage,
	splitText,
	unixSeconds,
} from "../reply.js";
import type { FakeReply } from "../types.js";
import type { RenderContext, RenderedStream, SseEvent, WireFormat } from "../wire.js";
import { openaiErrorObject, openaiErrorResponse, openaiRequestId } from "./openai-errors.js";

/**
 * OpenAI Chat Completions streaming: data-only `chat.completion.chunk` events, then `[DONE]`.
 *
 * Order: a role chunk, `reasoning_content` deltas (the DeepSeek / OpenAI-compatible convention;
 * OpenAI itself never streams reasoning here), `content` deltas, per tool call one chunk with
 * `id`, `type` and `function.name` and empty arguments followed by argument fragments, a chunk with
 * an empty delta and `finish_reason`, and with `stream_options.include_usage` a usage chunk with
 * empty `choices` (every other chunk then carries `"usage": null`, as the real API does).
 */
function render(reply: FakeReply, context: RenderContext): RenderedStream {
	const includeUsage = asObject(asObject(context.request.body)?.stream_options)?.include_usage === true;
	const id = fakeId("chatcmpl-", context.number);
	const created = unixSeconds();
	const chunk = (choices: unknown[], usage: unknown = null): SseEvent => ({
		data: JSON.stringify({
			id,
			object: "chat.completion.chunk",
			created,
			model: context.model,
			service_tier: "default",
			system_fingerprint: "fp_fake",
			choices,
			...(includeUsage ? { usage } : {}),
		}),
	});
	const delta = (value: Record<string, unknown>, finishReason: string | null = null): SseEvent =>
		chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finishReason }]);

	const reasoning = deltasOf(reply.reasoning);
	const text = deltasOf(reply.text);
	const events: SseEvent[] = [];
	// The first chunk only opens the assistant message; its shape follows what comes first.
	if (reasoning !== undefined) events.push(delta({ role: "assistant", content: null, reasoning_content: "" }));
	else if (text !== undefined) events.push(delta({ role: "assistant", content: "", refusal: null }));
	else events.push(delta({ role: "assistant", content: null, refusal: null }));
	for (const piece of reasoning ?? []) events.push(delta({ content: null, reasoning_content: piece }));
	for (const piece of text ?? []) events.push(delta({ content: piece }));
	(reply.toolCalls ?? []).forEach((call, index) => {
		const callId = call.id ?? fakeId("call_", context.number, index);
		events.push(
			delta({ tool_calls: [{ index, id: callId, type: "function", function: { name: call.name, arguments: "" } }] }),
		);
		for (const piece of splitText(argumentsText(call), call.chunks)) {
			events.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
		}
	});

	const finishStart = events.length;
	events.push(delta({}, finishesWithToolCalls(reply) ? "tool_calls" : "stop"));
	if (includeUsage) {
		const usage = resolveUsage(reply.usage);
		events.push(
			chunk([], {
				prompt_tokens: usage.input,
				completion_tokens: usage.output,
				total_tokens: usage.input + usage.output,
				prompt_tokens_details: {
					cached_tokens: usage.cacheRead,
					audio_tokens: 0,
					...(usage.hasCacheWrite ? { cache_write_tokens: usage.cacheWrite } : {}),
				},
				completion_tokens_details: {
					reasoning_tokens: usage.reasoning,
					audio_tokens: 0,
					accepted_prediction_tokens: 0,
					rejected_prediction_tokens: 0,
				},
			}),
		);
	}
	events.push({ data: "[DONE]" });

	return {
		events,
		finishStart,
		// An error chunk ends the stream; the real API sends no `[DONE]` after it.
		streamError: (_sent, code, message) => [
			{ data: JSON.stringify({ error: openaiErrorObject(500, code, message, context.model) }) },
		],
	};
}

export const openaiChatWire: WireFormat = {
	render,
	errorResponse: openaiErrorResponse,
	headers: (context) => ({ "x-request-id": openaiRequestId(context) }),
};

import { asArray, asObject, asString } from "../json.js";
import { argumentsText, deltasOf, fakeId, resolveUsage, splitText, unixSeconds } from "../reply.js";
import type { FakeReply } from "../types.js";
import { type RenderContext, type RenderedStream, type SseEvent, typedEvent, type WireFormat } from "../wire.js";
import { openaiErrorObject, openaiErrorResponse, openaiRequestId } from "./openai-errors.js";

type Payload = { type: string } & Record<string, unknown>;

/** The envelope the real API repeats in created / in_progress / completed / failed. */
function responseObject(context: RenderContext, id: string, createdAt: number): Record<string, unknown> {
	const body = asObject(context.request.body);
	return {
		id,
		object: "response",
		created_at: createdAt,
		status: "in_progress",
		background: false,
		error: null,
		incomplete_details: null,
		instructions: asString(body?.instructions) ?? null,
		max_output_tokens: body?.max_output_tokens ?? null,
		model: context.model,
		output: [],
		parallel_tool_calls: true,
		previous_response_id: asString(body?.previous_response_id) ?? null,
		reasoning: { effort: null, summary: null },
		service_tier: "default",
		store: body?.store ?? true,
		temperature: 1,
		text: { format: { type: "text" } },
		tool_choice: "auto",
		tools: asArray(body?.tools),
		top_p: 1,
		truncation: "disabled",
		usage: null,
		user: null,
		metadata: {},
	};
}

/** Payloads of one output item, from `output_item.added` to `output_item.done`. */
function reasoningItem(id: string, outputIndex: number, deltas: string[], encrypted: boolean): Payload[] {
	const at = { item_id: id, output_index: outputIndex, summary_index: 0 };
	const text = deltas.join("");
	// Opaque state for stateless replay; the real value is an encrypted blob, any string will do.
	const encryptedContent = encrypted ? { encrypted_content: `gAAAAA${id}` } : {};
	const item = { id, type: "reasoning", content: [], ...encryptedContent, summary: [] as unknown[] };
	const payloads: Payload[] = [{ type: "response.output_item.added", output_index: outputIndex, item }];
	if (deltas.length > 0) {
		payloads.push({ type: "response.reasoning_summary_part.added", ...at, part: { type: "summary_text", text: "" } });
		for (const delta of deltas) payloads.push({ type: "response.reasoning_summary_text.delta", ...at, delta });
		payloads.push({ type: "response.reasoning_summary_text.done", ...at, text });
		payloads.push({ type: "response.reasoning_summary_part.done", ...at, part: { type: "summary_text", text } });
	}
	const summary = deltas.length > 0 ? [{ type: "summary_text", text }] : [];
	payloads.push({ type: "response.output_item.done", output_index: outputIndex, item: { ...item, summary } });
	return payloads;
}

function messageItem(id: string, outputIndex: number, deltas: string[]): Payload[] {
	const at = { item_id: id, output_index: outputIndex, content_index: 0 };
	const text = deltas.join("");
	const part = { type: "output_text", annotations: [], logprobs: [], text };
	return [
		{
			type: "response.output_item.added",
			output_index: outputIndex,
			item: { id, type: "message", status: "in_progress", content: [], role: "assistant" },
		},
		{ type: "response.content_part.added", ...at, part: { ...part, text: "" } },
		...deltas.map((delta) => ({ type: "response.output_text.delta", ...at, delta, logprobs: [] })),
		{ type: "response.output_text.done", ...at, text, logprobs: [] },
		{ type: "response.content_part.done", ...at, part },
		{
			type: "response.output_item.done",
			output_index: outputIndex,
			item: { id, type: "message", status: "completed", content: [part], role: "assistant" },
		},
	];
}

function functionCallItem(id: string, outputIndex: number, callId: string, name: string, pieces: string[]): Payload[] {
	const args = pieces.join("");
	const item = { id, type: "function_call", status: "in_progress", arguments: "", call_id: callId, name };
	return [
		{ type: "response.output_item.added", output_index: outputIndex, item },
		...pieces.map((delta) => ({
			type: "response.function_call_arguments.delta",
			item_id: id,
			output_index: outputIndex,
			delta,
		})),
		{ type: "response.function_call_arguments.done", item_id: id, output_index: outputIndex, arguments: args },
		{
			type: "response.output_item.done",
			output_index: outputIndex,
			item: { ...item, status: "completed", arguments: args },
		},
	];
}

/**
 * OpenAI Responses streaming: event-named SSE where the event name repeats the payload's `type`
 * and every payload carries `sequence_number` (its position in the stream).
 *
 * Order: `response.created`, `response.in_progress`, then the items with their `output_index`
 * (a reasoning item with one summary part, a message with one `output_text` part, function calls),
 * then `response.completed` with the output and usage. A reasoning item carries
 * `encrypted_content` when the request's `include` asks for `reasoning.encrypted_content`.
 */
function render(reply: FakeReply, context: RenderContext): RenderedStream {
	const body = asObject(context.request.body);
	const encrypted = asArray(body?.include).includes("reasoning.encrypted_content");
	const responseId = fakeId("resp_", context.number);
	const createdAt = unixSeconds();
	const envelope = responseObject(context, responseId, createdAt);

	const payloads: Payload[] = [
		{ type: "response.created", response: envelope },
		{ type: "response.in_progress", response: envelope },
	];
	const output: unknown[] = [];
	const addItem = (itemPayloads: Payload[]) => {
		payloads.push(...itemPayloads);
		output.push(itemPayloads[itemPayloads.length - 1]?.item);
	};
	const reasoning = deltasOf(reply.reasoning);
	if (reasoning !== undefined) {
		addItem(reasoningItem(fakeId("rs_", context.number, output.length), output.length, reasoning, encrypted));
	}
	const text = deltasOf(reply.text);
	if (text !== undefined) addItem(messageItem(fakeId("msg_", context.number, output.length), output.length, text));
	(reply.toolCalls ?? []).forEach((call, index) => {
		const callId = call.id ?? fakeId("call_", context.number, index);
		const pieces = splitText(argumentsText(call), call.chunks);
		addItem(functionCallItem(fakeId("fc_", context.number, output.length), output.length, callId, call.name, pieces));
	});

	const finishStart = payloads.length;
	const usage = resolveUsage(reply.usage);
	payloads.push({
		type: "response.completed",
		response: {
			...envelope,
			status: "completed",
			completed_at: unixSeconds(),
			output,
			usage: {
				input_tokens: usage.input,
				input_tokens_details: {
					cached_tokens: usage.cacheRead,
					...(usage.hasCacheWrite ? { cache_write_tokens: usage.cacheWrite } : {}),
				},
				output_tokens: usage.output,
				output_tokens_details: { reasoning_tokens: usage.reasoning },
				total_tokens: usage.input + usage.output,
			},
		},
	});

	const sequenced = (payload: Payload, sequenceNumber: number): SseEvent =>
		typedEvent({ ...payload, sequence_number: sequenceNumber });
	return {
		events: payloads.map(sequenced),
		finishStart,
		// As recorded from the live API: an `error` event with a nested error, then `response.failed`.
		streamError: (sent, code, message) => {
			const error = openaiErrorObject(500, code ?? "server_error", message, context.model);
			return [
				sequenced({ type: "error", error }, sent),
				sequenced(
					{
						type: "response.failed",
						response: { ...envelope, status: "failed", error: { code: error.code, message: error.message } },
					},
					sent + 1,
				),
			];
		},
	};
}

export const openaiResponsesWire: WireFormat = {
	render,
	errorResponse: openaiErrorResponse,
	headers: (context) => ({ "x-request-id": openaiRequestId(context) }),
};

import { asArray, asObject, asString } from "./json.js";
import type { ProviderApi } from "./types.js";

/** Collects flagged ids once each, in the order they were found. */
class Flags {
	readonly ids: string[] = [];
	add(id: string | undefined): void {
		const key = id ?? "(missing id)";
		if (!this.ids.includes(key)) this.ids.push(key);
	}
}

/** Ids that occur more than once in a list: a call or result given twice breaks one-to-one pairing. */
function repeated(ids: string[]): string[] {
	return ids.filter((id, index) => ids.indexOf(id) !== index);
}

/**
 * Chat Completions: an assistant message's `tool_calls` must be answered by the `tool` messages
 * right after it, one per call (`tool_call_id`); a `tool` message anywhere else is an orphan.
 */
function chatUnpaired(body: unknown): string[] {
	const flags = new Flags();
	const messages = asArray(asObject(body)?.messages).map(asObject);
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i];
		if (message?.role === "tool") {
			flags.add(asString(message.tool_call_id));
			continue;
		}
		if (message?.role !== "assistant") continue;
		const calls = asArray(message.tool_calls).map((call) => asString(asObject(call)?.id) ?? "(missing id)");
		for (const id of repeated(calls)) flags.add(id);
		const answered: string[] = [];
		while (messages[i + 1]?.role === "tool") {
			i++;
			const id = asString(messages[i]?.tool_call_id) ?? "(missing id)";
			if (!calls.includes(id) || answered.includes(id)) flags.add(id);
			answered.push(id);
		}
		for (const id of calls) if (!answered.includes(id)) flags.add(id);
	}
	return flags.ids;
}

const RESPONSES_CALLS = new Set([
	"function_call",
	"custom_tool_call",
	"local_shell_call",
	"shell_call",
	"apply_patch_call",
]);
const RESPONSES_OUTPUTS = new Set([
	"function_call_output",
	"custom_tool_call_output",
	"local_shell_call_output",
	"shell_call_output",
	"apply_patch_call_output",
]);

/**
 * Responses: every call item (`function_call` and the other client-side call types) needs an
 * output item with its `call_id` after it, and every output a call before it. When part of the
 * conversation lives on the server (`previous_response_id`, `conversation`, `item_reference`), an
 * output without a visible call is not flagged: its call may be there.
 */
function responsesUnpaired(body: unknown): string[] {
	const flags = new Flags();
	const request = asObject(body);
	const items = asArray(request?.input).map(asObject);
	const serverState =
		request?.previous_response_id != null ||
		request?.conversation != null ||
		items.some((item) => item?.type === "item_reference");
	const calls: string[] = [];
	const outputs: string[] = [];
	for (const item of items) {
		const type = asString(item?.type) ?? "";
		const id = asString(item?.call_id) ?? "(missing id)";
		if (RESPONSES_CALLS.has(type)) {
			if (calls.includes(id)) flags.add(id);
			calls.push(id);
		} else if (RESPONSES_OUTPUTS.has(type)) {
			if ((!calls.includes(id) && !serverState) || outputs.includes(id)) flags.add(id);
			outputs.push(id);
		}
	}
	for (const id of calls) if (!outputs.includes(id)) flags.add(id);
	return flags.ids;
}

function blocksOf(message: ReturnType<typeof asObject>, type: string, idKey: string): string[] {
	return asArray(message?.content)
		.map(asObject)
		.filter((block) => block?.type === type)
		.map((block) => asString(block?.[idKey]) ?? "(missing id)");
}

/**
 * Anthropic Messages: the `tool_use` blocks of an assistant message must each have a
 * `tool_result` block (`tool_use_id`) in the very next message, a user message; a `tool_result`
 * must answer a `tool_use` of the message right before it.
 */
function anthropicUnpaired(body: unknown): string[] {
	const flags = new Flags();
	const messages = asArray(asObject(body)?.messages).map(asObject);
	messages.forEach((message, i) => {
		if (message?.role === "assistant") {
			const uses = blocksOf(message, "tool_use", "id");
			for (const id of repeated(uses)) flags.add(id);
			const next = messages[i + 1];
			const results = next?.role === "user" ? blocksOf(next, "tool_result", "tool_use_id") : [];
			for (const id of uses) if (!results.includes(id)) flags.add(id);
		} else if (message?.role === "user") {
			const previous = messages[i - 1];
			const uses = previous?.role === "assistant" ? blocksOf(previous, "tool_use", "id") : [];
			const results = blocksOf(message, "tool_result", "tool_use_id");
			for (const id of repeated(results)) flags.add(id);
			for (const id of results) if (!uses.includes(id)) flags.add(id);
		}
	});
	return flags.ids;
}

/**
 * The call ids in a request body that would break the API's tool-call pairing rules: calls with
 * no result, results with no call, and ids given twice. Bodies of another shape give no ids.
 * Gemini requests are not checked (its calls carry no ids to pair by).
 */
export function findUnpairedCalls(api: ProviderApi, body: unknown): string[] {
	switch (api) {
		case "openai-chat":
			return chatUnpaired(body);
		case "openai-responses":
			return responsesUnpaired(body);
		case "anthropic":
			return anthropicUnpaired(body);
		case "google":
			return [];
	}
}

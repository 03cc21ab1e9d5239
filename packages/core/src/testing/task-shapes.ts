import type { OmniMessageType } from "../messages/omni-message.js";

/**
 * The message types of a Task whose one request answers text in `chunks` pieces, in the order
 * docs/protocol.md §5.1 gives: the person's message, the request, the partials, the text, its
 * usage, the request's end, done. With `reasoning`, its partial and whole come before the text.
 * Where the engine and the server both promise this order, their tests expect it from here.
 */
export function textTaskTypes(chunks: number, { reasoning = false } = {}): OmniMessageType[] {
	return [
		"user_text",
		"request_begin",
		...(reasoning ? (["partial_reasoning", "reasoning"] as const) : []),
		...Array.from({ length: chunks }, () => "partial_text" as const),
		"assistant_text",
		"token_usage",
		"request_end",
		"done",
	];
}

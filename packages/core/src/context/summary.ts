import { readMarker } from "../messages/markers.js";
import type { ModelMessage } from "../messages/omni-message.js";

export type SummaryCheck =
	| { ok: true; summary: string }
	| { ok: false; reason: "empty" | "not_smaller"; detail: string };

/**
 * Extracts the `[summary]` block (or the older `<summary>` form) from a compaction response and
 * checks it can stand in for the context: not empty, and smaller than what it replaces.
 */
export function checkSummary(responseText: string, replaced: readonly ModelMessage[]): SummaryCheck {
	const summary = readMarker(responseText, "summary")?.trim() ?? "";
	if (summary === "") {
		return { ok: false, reason: "empty", detail: "The reply had no [summary]…[/summary] block, or it was empty." };
	}
	const size = contextSize(replaced);
	if (summary.length >= size) {
		return {
			ok: false,
			reason: "not_smaller",
			detail: `The summary (${summary.length} characters) is not smaller than the conversation it replaces (${size} characters).`,
		};
	}
	return { ok: true, summary };
}

/** The characters a context holds: what a summary must undercut. */
export function contextSize(messages: readonly ModelMessage[]): number {
	let size = 0;
	for (const message of messages) {
		switch (message.type) {
			case "tool_call":
				size += message.name.length + message.arguments.length;
				break;
			case "tool_call_output":
				size += message.output.length;
				break;
			default:
				size += message.text.length;
		}
	}
	return size;
}

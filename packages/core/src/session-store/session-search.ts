import type { OmniMessage } from "../messages/omni-message.js";

/** How many Sessions' texts a search reads at most, newest first (titles are always all searched). */
export const SEARCH_SCAN_LIMIT = 200;

/** Characters of context either side of a match in its snippet. */
const CONTEXT = 40;

/** Where a search found its text: the message's seq and the words around the match. */
export interface TextMatch {
	seq: number;
	snippet: string;
}

/**
 * The first message a person or the agent wrote (`user_text`, `assistant_text`; a subagent's are
 * not the conversation's) that holds `query`, case-insensitively; undefined when none does.
 */
export function findText(messages: readonly OmniMessage[], query: string): TextMatch | undefined {
	// Runs of spaces and line breaks count as one space: a search types what it saw on a line.
	const needle = squash(query).toLowerCase();
	if (needle === "") return undefined;
	for (const message of messages) {
		if (message.origin !== undefined) continue;
		if (message.type !== "user_text" && message.type !== "assistant_text") continue;
		const text = squash(message.type === "assistant_text" ? plainText(message.text) : message.text);
		const at = text.toLowerCase().indexOf(needle);
		if (at === -1) continue;
		return { seq: message.seq, snippet: snippetAt(text, at, needle.length) };
	}
	return undefined;
}

function snippetAt(text: string, at: number, length: number): string {
	const from = Math.max(0, at - CONTEXT);
	const to = Math.min(text.length, at + length + CONTEXT);
	const middle = text.slice(from, to).trim();
	return `${from > 0 ? "…" : ""}${middle}${to < text.length ? "…" : ""}`;
}

/**
 * An answer's markdown as it reads on screen, for matching and snippets: no code fences, heading
 * or quote markers, bold or code marks, and a link's text without its address. (Single `*` and
 * `_` stay: in code and sums they are the text.)
 */
function plainText(markdown: string): string {
	return markdown
		.replace(/^\s{0,3}(```|~~~).*$/gm, "")
		.replace(/^\s{0,3}#{1,6}\s+/gm, "")
		.replace(/^\s{0,3}>\s?/gm, "")
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
		.replace(/\*\*|__|`/g, "");
}

function squash(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

/**
 * Characters that change how text reads without showing themselves: control characters (but the
 * line feed and the tab), bidi overrides and isolates (U+202E turns `txt.exe` into `exe.txt`),
 * zero-width ones. A person approving a command must see exactly what runs, so they are shown
 * escaped (`\u202e`), never applied.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu;

export type TextPart = { kind: "text"; text: string } | { kind: "escaped"; text: string };

export function escapeCode(char: string): string {
	return `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`;
}

/** `text` cut into plain runs and escaped characters, in order. */
export function splitInvisible(text: string): TextPart[] {
	const parts: TextPart[] = [];
	let last = 0;
	for (const match of text.matchAll(INVISIBLE)) {
		if (match.index > last) parts.push({ kind: "text", text: text.slice(last, match.index) });
		parts.push({ kind: "escaped", text: escapeCode(match[0]) });
		last = match.index + match[0].length;
	}
	if (last < text.length) parts.push({ kind: "text", text: text.slice(last) });
	return parts;
}

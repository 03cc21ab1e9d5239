/**
 * Characters a terminal would act on or hide rather than show: C0 and C1 controls (ESC starts
 * colour and cursor sequences, CR rewrites the line), DEL, the bidirectional overrides and
 * isolates (U+202E shows `hs | lruc` for `curl | sh`), and the zero-width ones. A newline is the
 * caller's to split on; everything here is shown as its escape instead, e.g. `\u202e`.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding the controls is what it is for.
const INVISIBLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

const NAMED: Readonly<Record<string, string>> = { "\t": "\\t", "\r": "\\r" };

/** `text` with every control, bidi and zero-width character shown as its escape, never applied. */
export function showInvisible(text: string): string {
	return text.replace(
		INVISIBLE,
		(char) => NAMED[char] ?? `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
	);
}

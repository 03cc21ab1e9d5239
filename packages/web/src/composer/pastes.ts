import { type ClipboardEvent, useState } from "react";

/**
 * Long pastes, held beside the composer instead of in its textarea: a megabyte in a textarea costs
 * the browser seconds (layout, spellcheck) on every keystroke after it; a chip costs nothing. The
 * full text is sent, after what was typed.
 */

/** A paste longer than this (in characters or lines) becomes a chip. */
export const LONG_PASTE_CHARS = 2_000;
export const LONG_PASTE_LINES = 12;

export interface Paste {
	id: number;
	text: string;
	lines: number;
}

/** Lines as a person counts them: a closing line break ends the last line, it starts none. */
export function lineCount(text: string): number {
	let lines = 1;
	for (let i = text.indexOf("\n"); i !== -1 && i < text.length - 1; i = text.indexOf("\n", i + 1)) lines++;
	return lines;
}

export function isLong(text: string): boolean {
	return text.length > LONG_PASTE_CHARS || lineCount(text) > LONG_PASTE_LINES;
}

/** The message a person sends: what they typed, then each paste in full, a blank line between. */
export function messageOf(typed: string, pastes: readonly Paste[]): string {
	return [typed.trim(), ...pastes.map((p) => p.text)].filter((part) => part !== "").join("\n\n");
}

let nextPaste = 1;

export function usePastes() {
	const [pastes, setPastes] = useState<Paste[]>([]);
	const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
		const text = event.clipboardData.getData("text/plain");
		if (!isLong(text)) return;
		event.preventDefault();
		const paste = { id: nextPaste++, text, lines: lineCount(text) };
		setPastes((now) => [...now, paste]);
	};
	return {
		pastes,
		onPaste,
		remove: (id: number) => setPastes((now) => now.filter((p) => p.id !== id)),
		clear: () => setPastes([]),
		restore: (kept: Paste[]) => setPastes((now) => (now.length === 0 ? kept : now)),
	};
}

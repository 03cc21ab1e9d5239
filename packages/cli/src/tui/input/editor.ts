import type { KeyEvent } from "./keys.js";
import { LongPastes } from "./long-pastes.js";

/** The message being written: its text (newlines included) and the cursor, an index into it. */
export interface EditorState {
	readonly text: string;
	readonly cursor: number;
}

export const EMPTY_EDITOR: EditorState = { text: "", cursor: 0 };

/** A message taken out of the editor: as it is sent, and as the input showed it (long pastes as labels). */
export interface TakenMessage {
	readonly text: string;
	readonly shown: string;
}

/**
 * The input line's editing: insert, delete, move by character, word and line, and history.
 * Pure state in, state out, so it is tested without a terminal. Enter, Ctrl-C and Ctrl-D are
 * decided by the owner (they mean send, interrupt, leave); everything else is here.
 */
export class Editor {
	state: EditorState = EMPTY_EDITOR;
	private readonly history: string[] = [];
	/** Where ↑/↓ are in the history; `history.length` is the message being written. */
	private browsing = 0;
	private draft = "";
	private readonly pastes = new LongPastes();

	get text(): string {
		return this.state.text;
	}

	/** Applies a key; returns false for keys the editor does not handle. */
	apply(event: KeyEvent): boolean {
		const { text, cursor } = this.state;
		switch (event.kind) {
			case "text":
				this.insert(event.text);
				return true;
			case "paste":
				this.insert(this.pastes.insert(event.text));
				return true;
			case "newline":
				this.insert("\n");
				return true;
			case "tab":
				this.insert("\t");
				return true;
			case "backspace":
				if (cursor > 0) {
					const start = previousBoundary(text, cursor);
					this.set(text.slice(0, start) + text.slice(cursor), start);
				}
				return true;
			case "delete":
				if (cursor < text.length) this.set(text.slice(0, cursor) + text.slice(nextBoundary(text, cursor)), cursor);
				return true;
			case "left":
				this.move(previousBoundary(text, cursor));
				return true;
			case "right":
				this.move(nextBoundary(text, cursor));
				return true;
			case "home":
				this.move(lineStart(text, cursor));
				return true;
			case "end":
				this.move(lineEnd(text, cursor));
				return true;
			case "word-left":
				this.move(wordLeft(text, cursor));
				return true;
			case "word-right":
				this.move(wordRight(text, cursor));
				return true;
			case "up":
				return this.vertical(-1);
			case "down":
				return this.vertical(1);
			case "ctrl":
				return this.control(event.key);
			default:
				return false;
		}
	}

	/** Takes the message out (for sending) and remembers it for ↑. */
	take(): TakenMessage {
		const shown = this.state.text;
		if (shown.trim() !== "" && this.history.at(-1) !== shown) this.history.push(shown);
		this.browsing = this.history.length;
		this.draft = "";
		this.state = EMPTY_EDITOR;
		return { text: this.pastes.expand(shown), shown };
	}

	private control(key: string): boolean {
		const { text, cursor } = this.state;
		switch (key) {
			case "a":
				this.move(lineStart(text, cursor));
				return true;
			case "e":
				this.move(lineEnd(text, cursor));
				return true;
			case "b":
				this.move(previousBoundary(text, cursor));
				return true;
			case "f":
				this.move(nextBoundary(text, cursor));
				return true;
			case "k":
				this.set(text.slice(0, cursor) + text.slice(lineEnd(text, cursor)), cursor);
				return true;
			case "u": {
				const start = lineStart(text, cursor);
				this.set(text.slice(0, start) + text.slice(cursor), start);
				return true;
			}
			case "w": {
				const start = wordLeft(text, cursor);
				this.set(text.slice(0, start) + text.slice(cursor), start);
				return true;
			}
			default:
				return false;
		}
	}

	/** ↑/↓ move between lines of a multi-line message; from its first/last line they walk the history. */
	private vertical(direction: -1 | 1): boolean {
		const { text, cursor } = this.state;
		const start = lineStart(text, cursor);
		const end = lineEnd(text, cursor);
		if (direction === -1 && start > 0) {
			const prevStart = lineStart(text, start - 1);
			this.move(Math.min(prevStart + (cursor - start), start - 1));
			return true;
		}
		if (direction === 1 && end < text.length) {
			const nextEnd = lineEnd(text, end + 1);
			this.move(Math.min(end + 1 + (cursor - start), nextEnd));
			return true;
		}
		const target = this.browsing + direction;
		if (target < 0 || target > this.history.length) return true;
		if (this.browsing === this.history.length) this.draft = text;
		this.browsing = target;
		const recalled = target === this.history.length ? this.draft : (this.history[target] as string);
		this.set(recalled, recalled.length);
		return true;
	}

	private insert(inserted: string): void {
		const { text, cursor } = this.state;
		this.set(text.slice(0, cursor) + inserted + text.slice(cursor), cursor + inserted.length);
	}

	private move(cursor: number): void {
		this.set(this.state.text, cursor);
	}

	private set(text: string, cursor: number): void {
		this.state = { text, cursor: snapToBoundary(text, Math.max(0, Math.min(text.length, cursor))) };
	}
}

/** Characters as a person sees them: an emoji, a flag, a letter with its accents is one. */
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Where the character before `cursor` starts (never inside a surrogate pair or a cluster). */
export function previousBoundary(text: string, cursor: number): number {
	if (cursor <= 0) return 0;
	return graphemes.segment(text).containing(cursor - 1)?.index ?? cursor - 1;
}

/** Where the character at `cursor` ends. */
export function nextBoundary(text: string, cursor: number): number {
	if (cursor >= text.length) return text.length;
	const at = graphemes.segment(text).containing(cursor);
	return at === undefined ? cursor + 1 : at.index + at.segment.length;
}

/** A cursor inside a character (↑ ↓ keep a column counted in UTF-16 units) moves to its start. */
function snapToBoundary(text: string, cursor: number): number {
	if (cursor <= 0 || cursor >= text.length) return cursor;
	return graphemes.segment(text).containing(cursor)?.index ?? cursor;
}

function lineStart(text: string, cursor: number): number {
	return text.lastIndexOf("\n", cursor - 1) + 1;
}

function lineEnd(text: string, cursor: number): number {
	const end = text.indexOf("\n", cursor);
	return end === -1 ? text.length : end;
}

function wordLeft(text: string, cursor: number): number {
	let i = cursor;
	while (i > 0 && /\s/.test(text[i - 1] as string)) i--;
	while (i > 0 && !/\s/.test(text[i - 1] as string)) i--;
	return i;
}

function wordRight(text: string, cursor: number): number {
	let i = cursor;
	while (i < text.length && /\s/.test(text[i] as string)) i++;
	while (i < text.length && !/\s/.test(text[i] as string)) i++;
	return i;
}

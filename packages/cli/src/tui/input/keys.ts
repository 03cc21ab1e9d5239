/** A key, a run of typed text or a paste, read from a terminal in raw mode. */
export type KeyEvent =
	| { kind: "text"; text: string }
	| { kind: "paste"; text: string }
	| { kind: "enter" }
	/** Shift+Enter (kitty/xterm modifyOtherKeys), Alt+Enter, or Ctrl+J: a newline in the message. */
	| { kind: "newline" }
	| { kind: "backspace" }
	| { kind: "delete" }
	| { kind: "left" | "right" | "up" | "down" | "home" | "end" | "page-up" | "page-down" }
	| { kind: "word-left" | "word-right" }
	| { kind: "ctrl"; key: string }
	| { kind: "tab" }
	| { kind: "escape" };

const PASTE_END = "\x1b[201~";

/** CSI sequences this reader knows; an unknown one is dropped whole rather than typed as text. */
const CSI_KEYS: Readonly<Record<string, KeyEvent>> = {
	A: { kind: "up" },
	B: { kind: "down" },
	C: { kind: "right" },
	D: { kind: "left" },
	H: { kind: "home" },
	F: { kind: "end" },
	"1~": { kind: "home" },
	"7~": { kind: "home" },
	"4~": { kind: "end" },
	"8~": { kind: "end" },
	"3~": { kind: "delete" },
	"5~": { kind: "page-up" },
	"6~": { kind: "page-down" },
	"1;5C": { kind: "word-right" },
	"1;5D": { kind: "word-left" },
	"1;3C": { kind: "word-right" },
	"1;3D": { kind: "word-left" },
	// Shift+Enter: kitty keyboard protocol, and xterm's modifyOtherKeys.
	"13;2u": { kind: "newline" },
	"27;2;13~": { kind: "newline" },
};

/**
 * Turns the bytes of a raw-mode terminal into key events. Bytes come in chunks that may cut a
 * sequence (or a paste) in two: what cannot be decided yet waits for the next chunk. Typed text
 * keeps every character in order: a burst of keys in one chunk is one text event.
 */
export class KeyReader {
	private pending = "";
	private paste: string | undefined;

	/** The events in `chunk` (with what was left from the previous one). */
	push(chunk: string): KeyEvent[] {
		this.pending += chunk;
		const events: KeyEvent[] = [];
		let text = "";
		const flushText = () => {
			if (text !== "") events.push({ kind: "text", text });
			text = "";
		};
		while (this.pending !== "") {
			if (this.paste !== undefined) {
				const end = this.pending.indexOf(PASTE_END);
				if (end === -1) {
					// Keep a possible start of the end marker for the next chunk.
					const keep = partialSuffix(this.pending, PASTE_END);
					this.paste += this.pending.slice(0, this.pending.length - keep);
					this.pending = this.pending.slice(this.pending.length - keep);
					break;
				}
				events.push({ kind: "paste", text: normalizePaste(this.paste + this.pending.slice(0, end)) });
				this.paste = undefined;
				this.pending = this.pending.slice(end + PASTE_END.length);
				continue;
			}
			const ch = this.pending[0] as string;
			if (ch === "\x1b") {
				const parsed = parseEscape(this.pending);
				if (parsed === "incomplete") break;
				flushText();
				this.pending = this.pending.slice(parsed.length);
				if (parsed.event === "paste-start") this.paste = "";
				else if (parsed.event !== undefined) events.push(parsed.event);
				continue;
			}
			this.pending = this.pending.slice(1);
			const control = controlKey(ch);
			if (control === undefined) {
				text += ch;
				continue;
			}
			flushText();
			events.push(control);
		}
		flushText();
		return events;
	}

	/**
	 * A lone ESC stays pending (it may start a sequence); after a pause it is the Escape key.
	 * Returns the events of whatever was left waiting.
	 */
	flush(): KeyEvent[] {
		if (this.paste !== undefined || this.pending === "") return [];
		const rest = this.pending;
		this.pending = "";
		if (rest === "\x1b") return [{ kind: "escape" }];
		const text = rest.split("\x1b").join("");
		return text === "" ? [] : [{ kind: "text", text }];
	}
}

function controlKey(ch: string): KeyEvent | undefined {
	if (ch === "\r") return { kind: "enter" };
	if (ch === "\n") return { kind: "newline" };
	if (ch === "\x7f" || ch === "\b") return { kind: "backspace" };
	if (ch === "\t") return { kind: "tab" };
	const code = ch.charCodeAt(0);
	if (code < 32) return { kind: "ctrl", key: String.fromCharCode(code + 96) };
	return undefined;
}

type Escape = { length: number; event: KeyEvent | "paste-start" | undefined };

function parseEscape(input: string): Escape | "incomplete" {
	if (input.length === 1) return "incomplete";
	const second = input[1] as string;
	if (second === "[") {
		// CSI: parameters and intermediates, then one final byte in @..~ (after the ESC [).
		const match = /^([0-9;:?<=>]*)([ -/]*)([@-~])/.exec(input.slice(2));
		if (match === null)
			return /^[0-9;:?<=> -/]*$/.test(input.slice(2)) ? "incomplete" : { length: 2, event: undefined };
		const body = `${match[1]}${match[2]}${match[3]}`;
		const length = 2 + match[0].length;
		if (body === "200~") return { length, event: "paste-start" };
		return { length, event: CSI_KEYS[body] };
	}
	if (second === "O") {
		if (input.length < 3) return "incomplete";
		return { length: 3, event: CSI_KEYS[input[2] as string] };
	}
	// Alt+key: ESC then the key. Alt+Enter is the portable newline key.
	if (second === "\r" || second === "\n") return { length: 2, event: { kind: "newline" } };
	if (second === "b") return { length: 2, event: { kind: "word-left" } };
	if (second === "f") return { length: 2, event: { kind: "word-right" } };
	if (second === "\x7f") return { length: 2, event: { kind: "ctrl", key: "w" } };
	if (second === "\x1b") return { length: 1, event: { kind: "escape" } };
	return { length: 2, event: undefined };
}

/** How many characters at the end of `text` are a start of `marker`. */
function partialSuffix(text: string, marker: string): number {
	for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) {
		if (text.endsWith(marker.slice(0, n))) return n;
	}
	return 0;
}

/** Terminals send a paste's line breaks as CR: the message keeps them as newlines. */
function normalizePaste(text: string): string {
	return text.replace(/\r\n?/g, "\n");
}

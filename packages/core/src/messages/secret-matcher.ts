/**
 * The credential values of a Task, prepared once for the checks redaction makes on every streamed
 * delta (docs/protocol.md): which values begin with a given character, and how long they run. A
 * delta is looked at only where a value could start, and only in its last characters, so a delta
 * costs about the same with twenty values as with one.
 */
export class SecretMatcher {
	/** The values, longest first: the longest is replaced first, so one that contains another goes whole. */
	readonly values: readonly string[];
	private readonly byFirst = new Map<number, string[]>();
	private readonly shortest: number;
	private readonly longest: number;
	private readonly replacement: string;

	constructor(values: readonly string[], replacement: string) {
		this.values = values;
		this.replacement = replacement;
		for (const value of values) {
			const first = value.charCodeAt(0);
			const list = this.byFirst.get(first);
			if (list === undefined) this.byFirst.set(first, [value]);
			else list.push(value);
		}
		this.shortest = values.at(-1)?.length ?? 0;
		this.longest = values[0]?.length ?? 0;
	}

	/** The text with every value replaced, or the text itself when it holds none. */
	redact(text: string): string {
		if (text.length < this.shortest) return text;
		let out = text;
		for (const value of this.values) if (out.includes(value)) out = out.split(value).join(this.replacement);
		return out;
	}

	/**
	 * Where the part of `text` that is final ends: before the longest end of it that could still
	 * become a value with more text, and never inside a whole value (cut there, it would go out in
	 * part). What comes after is held back until the next delta.
	 */
	finalEnd(text: string): number {
		let end = text.length - this.valueStartAtEnd(text);
		if (end === text.length) return end;
		for (let start = this.valueAcross(text, end); start !== undefined; start = this.valueAcross(text, end)) end = start;
		return end;
	}

	/** How many characters at the end of `text` could begin a value (the longest such end). */
	private valueStartAtEnd(text: string): number {
		for (let at = Math.max(0, text.length - this.longest + 1); at < text.length; at++) {
			const candidates = this.byFirst.get(text.charCodeAt(at));
			if (candidates === undefined) continue;
			const rest = text.length - at;
			for (const value of candidates) if (value.length > rest && startsAt(value, text, at)) return rest;
		}
		return 0;
	}

	/** The start of a whole value in `text` that begins before `end` and finishes after it, if any. */
	private valueAcross(text: string, end: number): number | undefined {
		for (let at = Math.max(0, end - this.longest + 1); at < end; at++) {
			const candidates = this.byFirst.get(text.charCodeAt(at));
			if (candidates === undefined) continue;
			for (const value of candidates) {
				const finish = at + value.length;
				if (finish > end && finish <= text.length && text.startsWith(value, at)) return at;
			}
		}
		return undefined;
	}
}

/** Whether `value` begins with what `text` holds from `at` to its end. */
function startsAt(value: string, text: string, at: number): boolean {
	for (let i = at; i < text.length; i++) if (text.charCodeAt(i) !== value.charCodeAt(i - at)) return false;
	return true;
}

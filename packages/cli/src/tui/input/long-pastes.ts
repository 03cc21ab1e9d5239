/** A paste longer than this many lines, or bytes, is shown as a placeholder (docs/cli.md). */
const MAX_SHOWN_LINES = 20;
const MAX_SHOWN_BYTES = 4 * 1024;

/**
 * Long pastes, kept whole while the input and the conversation show one short label for each
 * ("[Pasted 312 lines]"): drawing 300 KB in the input box would take seconds and bury the
 * screen. The labels stay known after sending, so ↑ brings a message back with its pastes.
 */
export class LongPastes {
	private readonly texts = new Map<string, string>();

	/** What goes into the input for a paste: the text itself, or the label standing for it. */
	insert(text: string): string {
		// A paste that ends with a line break has no line after it.
		const lines = text.replace(/\r?\n$/, "").split("\n").length;
		if (lines <= MAX_SHOWN_LINES && Buffer.byteLength(text) <= MAX_SHOWN_BYTES) return text;
		const base = `Pasted ${lines} ${lines === 1 ? "line" : "lines"}`;
		let label = `[${base}]`;
		for (let n = 2; this.texts.has(label) && this.texts.get(label) !== text; n++) label = `[${base} #${n}]`;
		this.texts.set(label, text);
		return label;
	}

	/** The message as sent: every label in `shown` replaced by its paste. */
	expand(shown: string): string {
		let text = shown;
		for (const [label, paste] of this.texts) if (text.includes(label)) text = text.split(label).join(paste);
		return text;
	}
}

/**
 * System markers: `[tag]…[/tag]` blocks inside user text (`[user_steering]`, `[turn_aborted]`,
 * `[turn_retried]`, `[context_summary]`, `[summary]`). Markers are written in the square form; the
 * older `<tag>…</tag>` form is still recognized when reading old Traces and prompts.
 */

export type MarkerTag =
	| "user_steering"
	| "turn_aborted"
	| "turn_retried"
	| "context_summary"
	| "summary"
	| "interrupted"
	| (string & {});

const TAG_NAME = /^[a-z][a-z0-9_]*$/;

function checkTag(tag: string): void {
	if (!TAG_NAME.test(tag)) throw new TypeError(`marker tag "${tag}" must match ${TAG_NAME}`);
}

/** Wraps `body` as `[tag]body[/tag]`. */
export function writeMarker(tag: MarkerTag, body: string): string {
	checkTag(tag);
	return `[${tag}]${body}[/${tag}]`;
}

export interface MarkerBlock {
	tag: string;
	body: string;
	/** Which form the block was written in. */
	form: "square" | "angle";
	/** Offsets of the whole block in the parsed text: [start, end). */
	start: number;
	end: number;
}

/**
 * Finds the first `tag` block in `text`, in either form, and returns its body; undefined when the
 * text holds no complete block of that tag.
 */
export function readMarker(text: string, tag: MarkerTag): string | undefined {
	return parseMarkers(text).find((block) => block.tag === tag)?.body;
}

/** True when the whole text (surrounding whitespace aside) is one `tag` block. */
export function isMarker(text: string, tag: MarkerTag): boolean {
	return wholeMarker(text)?.tag === tag;
}

/** The block the whole text (surrounding whitespace aside) is, of any tag; undefined when it is not one. */
export function wholeMarker(text: string): MarkerBlock | undefined {
	const trimmed = text.trim();
	const blocks = parseMarkers(trimmed);
	const [block] = blocks;
	return blocks.length === 1 && block !== undefined && block.start === 0 && block.end === trimmed.length
		? block
		: undefined;
}

const OPEN = /\[([a-z][a-z0-9_]*)\]|<([a-z][a-z0-9_]*)>/g;

/**
 * Every top-level marker block in `text`, in order. A block's body runs to the first matching
 * closing tag of the same form; an opening tag with no closing tag is plain text.
 */
export function parseMarkers(text: string): MarkerBlock[] {
	const blocks: MarkerBlock[] = [];
	OPEN.lastIndex = 0;
	for (let match = OPEN.exec(text); match !== null; match = OPEN.exec(text)) {
		const square = match[1] !== undefined;
		const tag = (match[1] ?? match[2]) as string;
		const close = square ? `[/${tag}]` : `</${tag}>`;
		const bodyStart = match.index + match[0].length;
		const closeAt = text.indexOf(close, bodyStart);
		if (closeAt === -1) continue;
		const end = closeAt + close.length;
		blocks.push({
			tag,
			body: text.slice(bodyStart, closeAt),
			form: square ? "square" : "angle",
			start: match.index,
			end,
		});
		OPEN.lastIndex = end;
	}
	return blocks;
}

import { parseMarkdownIntoBlocks } from "streamdown";

interface Parsed {
	text: string;
	blocks: string[];
}

/** Recent parses, newest last: an answer streams while a subagent's may stream beside it. */
const recent: Parsed[] = [];
const KEEP = 8;

/**
 * Splits markdown into top-level blocks like streamdown's own parser, but when the text only grew
 * since a recent call (a streaming answer), the blocks before the last two are kept as they were
 * and only the tail is lexed again: a token can change the block it lands in and join it to the
 * one before (a list's next item, a setext underline), nothing earlier. So a token costs O(tail),
 * not O(answer).
 */
export function splitBlocks(text: string): string[] {
	let blocks: string[] | undefined;
	for (let i = recent.length - 1; i >= 0; i--) {
		const prev = recent[i] as Parsed;
		if (prev.text === text) return prev.blocks;
		if (text.startsWith(prev.text) && prev.blocks.length > 2) {
			const kept = prev.blocks.slice(0, -2);
			const offset = kept.reduce((sum, block) => sum + block.length, 0);
			blocks = [...kept, ...parseMarkdownIntoBlocks(text.slice(offset))];
			recent.splice(i, 1);
			break;
		}
	}
	blocks ??= parseMarkdownIntoBlocks(text);
	recent.push({ text, blocks });
	if (recent.length > KEEP) recent.shift();
	return blocks;
}

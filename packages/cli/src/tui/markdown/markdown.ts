import type { Style } from "../../terminal/style.js";
import { highlightLine } from "./highlight.js";
import { isTableRow, renderTable } from "./markdown-table.js";

/**
 * Markdown for a terminal, one line at a time, so a streamed answer is rendered as it arrives:
 * headings, emphasis, inline code, links, lists, quotes, rules and fenced code (highlighted).
 * The only state across lines is whether a code fence is open. Wrapping is left to the
 * terminal UI, which wraps at word boundaries.
 */
export class MarkdownLines {
	private fence: { marker: string; language: string } | undefined;
	/** A table's rows so far: it is drawn once it ends, when its columns' widths are known. */
	private table: string[] = [];

	constructor(
		private readonly style: Style,
		private readonly width: () => number,
	) {}

	/** Whether the next line is inside a code fence. */
	get inCode(): boolean {
		return this.fence !== undefined;
	}

	/**
	 * How a line still being streamed looks now. Unlike `render` it leaves the fence state alone:
	 * a fence marker whose language or newline has not arrived yet must not open or close one.
	 */
	preview(line: string): string {
		const fence = this.fence;
		const shown = this.render(line);
		this.fence = fence;
		return shown;
	}

	/**
	 * The lines to write for one finished source line: none while a table is being read, the
	 * table and the line once it ends.
	 */
	push(line: string): string[] {
		if (this.fence === undefined && isTableRow(line)) {
			this.table.push(line);
			return [];
		}
		const out = this.end();
		out.push(this.render(line));
		return out;
	}

	/** What is still held (a table at the end of the answer), rendered. */
	end(): string[] {
		if (this.table.length === 0) return [];
		const rows = this.table;
		this.table = [];
		return renderTable(rows, this.style, (text) => inline(text, this.style));
	}

	/** The terminal form of one source line (without its newline). */
	render(line: string): string {
		const s = this.style;
		const fence = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)/.exec(line);
		if (this.fence !== undefined) {
			if (fence?.[1]?.startsWith(this.fence.marker) && fence[2] === "") {
				this.fence = undefined;
				return s.dim("  ╰─");
			}
			return `  ${s.dim("│")} ${highlightLine(line, this.fence.language, s)}`;
		}
		if (fence !== null) {
			this.fence = { marker: fence[1] as string, language: fence[2] ?? "" };
			return s.dim(`  ╭─${this.fence.language === "" ? "" : ` ${this.fence.language}`}`);
		}
		const heading = /^(#{1,6})\s+(.*)$/.exec(line);
		if (heading !== null) {
			const text = inline(heading[2] ?? "", s);
			return (heading[1] as string).length <= 2 ? s.bold(s.underline(text)) : s.bold(text);
		}
		if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return s.dim("─".repeat(Math.min(40, this.width())));
		const quote = /^\s*>\s?(.*)$/.exec(line);
		if (quote !== null) return `${s.dim("│")} ${s.italic(inline(quote[1] ?? "", s))}`;
		const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
		if (bullet !== null) {
			const task = /^\[([ xX])\]\s+(.*)$/.exec(bullet[2] ?? "");
			const mark = task === null ? "•" : task[1] === " " ? "☐" : "☑";
			return `${bullet[1]}  ${s.cyan(mark)} ${inline(task?.[2] ?? bullet[2] ?? "", s)}`;
		}
		const numbered = /^(\s*)(\d+[.)])\s+(.*)$/.exec(line);
		if (numbered !== null) return `${numbered[1]}  ${s.cyan(numbered[2] as string)} ${inline(numbered[3] ?? "", s)}`;
		return inline(line, s);
	}
}

/** Emphasis, inline code and links inside one line. */
export function inline(text: string, s: Style): string {
	const parts: string[] = [];
	// Code spans first: nothing inside them is markdown.
	const code = /(`+)([^`]|[^`].*?[^`])\1(?!`)/g;
	let last = 0;
	for (const match of text.matchAll(code)) {
		parts.push(emphasis(text.slice(last, match.index), s));
		parts.push(s.cyan(match[2] as string));
		last = match.index + match[0].length;
	}
	parts.push(emphasis(text.slice(last), s));
	return parts.join("");
}

function emphasis(text: string, s: Style): string {
	return text
		.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, label: string, url: string) =>
			label === url ? s.underline(url) : `${s.underline(label)} ${s.dim(`(${url})`)}`,
		)
		.replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, (_m, _d, body: string) => s.bold(body))
		.replace(
			/(^|[^*\w])([*_])(?=\S)(.+?)(?<=\S)\2(?![*\w])/g,
			(_m, pre: string, _d, body: string) => pre + s.italic(body),
		)
		.replace(/~~(?=\S)(.+?)(?<=\S)~~/g, (_m, body: string) => s.dim(body));
}

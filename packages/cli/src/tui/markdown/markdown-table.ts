import type { Style } from "../../terminal/style.js";

type Align = "left" | "right" | "center";

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are what is stripped
const ANSI = /\x1b\[[0-9;]*m/g;

/** A line that may be a row of a table: GFM rows start with a pipe (the form models write). */
export function isTableRow(line: string): boolean {
	return /^\s*\|.*\|\s*$/.test(line);
}

function isDelimiterRow(line: string): boolean {
	return /^\s*\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*$/.test(line) && line.includes("-");
}

/** The cells of a row: split at pipes not escaped or inside a code span, without the outer pipes. */
function cells(line: string): string[] {
	const out: string[] = [];
	let cell = "";
	let code = false;
	const body = line.trim().replace(/^\|/, "").replace(/\|$/, "");
	for (let i = 0; i < body.length; i++) {
		const ch = body[i] as string;
		if (ch === "\\" && body[i + 1] === "|") {
			cell += "|";
			i++;
		} else if (ch === "`") {
			code = !code;
			cell += ch;
		} else if (ch === "|" && !code) {
			out.push(cell.trim());
			cell = "";
		} else cell += ch;
	}
	out.push(cell.trim());
	return out;
}

function alignOf(cell: string): Align {
	const left = cell.startsWith(":");
	const right = cell.endsWith(":");
	return left && right ? "center" : right ? "right" : "left";
}

function visibleLength(text: string): number {
	return [...text.replace(ANSI, "")].length;
}

function pad(text: string, width: number, align: Align): string {
	const room = width - visibleLength(text);
	if (align === "right") return " ".repeat(room) + text;
	if (align === "center") return " ".repeat(Math.floor(room / 2)) + text + " ".repeat(Math.ceil(room / 2));
	return text + " ".repeat(room);
}

/**
 * The rows of a GFM table as aligned columns, header bold, a rule under it. Rows that are no
 * table (no delimiter row second) come back as ordinary lines, rendered by `line`.
 */
export function renderTable(rows: readonly string[], style: Style, inline: (text: string) => string): string[] {
	const [header, delimiter, ...body] = rows;
	if (header === undefined || delimiter === undefined || !isDelimiterRow(delimiter)) return rows.map(inline);
	const aligns = cells(delimiter).map(alignOf);
	const table = [cells(header), ...body.map(cells)].map((row) => aligns.map((_, i) => inline(row[i] ?? "")));
	const widths = aligns.map((_, i) => Math.max(1, ...table.map((row) => visibleLength(row[i] as string))));
	const line = (row: readonly string[]) =>
		`  ${row.map((cell, i) => pad(cell, widths[i] as number, aligns[i] as Align)).join(style.dim(" │ "))}`;
	const [head, ...rest] = table;
	return [
		line((head as string[]).map((cell) => style.bold(cell))),
		style.dim(`  ${widths.map((w) => "─".repeat(w)).join("─┼─")}`),
		...rest.map(line),
	];
}

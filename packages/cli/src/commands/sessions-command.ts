import { join } from "node:path";
import { omniloopHome, SessionStore, type SessionSummary } from "@omniloop/core";
import type { CliContext } from "../cli-options.js";
import { EXIT } from "../exit-codes.js";
import type { TextSink } from "../terminal/screen.js";
import type { Style } from "../terminal/style.js";
import { shorten } from "../view/tool-summary.js";
import { count } from "../view/usage-format.js";

/** `omniloop sessions`: every Session, newest first; --json prints one summary a line. */
export function sessionsCommand(ctx: CliContext): number {
	const home = omniloopHome(ctx.env);
	if (ctx.screen.json) {
		for (const summary of new SessionStore(home).list()) ctx.screen.out.write(`${JSON.stringify(summary)}\n`);
	} else printSessionTable(home, ctx.screen.out, ctx.env.HOME ?? "");
	return EXIT.ok;
}

export function printSessionTable(home: string, sink: TextSink, userHome = ""): void {
	const summaries = new SessionStore(home).list();
	if (summaries.length === 0) {
		sink.line(`No sessions yet in ${join(home, "sessions")}.`);
		return;
	}
	// A pipe has no width: cells are cut only on a terminal (80 columns when it does not say).
	const width = sink.isTTY ? (sink.knownColumns ?? 80) - 1 : Number.POSITIVE_INFINITY;
	for (const line of sessionTable(summaries, sink.style, width, userHome)) sink.line(line);
}

const ID = 0;
const AGENT = 2;
const FOLDER = 3;
const TOKENS = 4;
const TITLE = 5;

/**
 * What gives way when the table is wider than the terminal, in this order, and how narrow it
 * gets: the id to its start (`replay` and `--resume` take that too), then the title, agent/model
 * and the folder, cut with an ellipsis, a step at a time.
 */
const SHRINK: readonly (readonly [column: number, min: number])[] = [
	[ID, 8],
	[TITLE, 40],
	[AGENT, 24],
	[FOLDER, 20],
	[TITLE, 16],
	[AGENT, 14],
	[FOLDER, 12],
	[TITLE, 12],
];

/**
 * Columns: id, date, agent/model, the folder it works in (home shortened to ~), tokens, title;
 * each Session on one line of `width` (cells are cut to fit; the id shown whole when there is room).
 */
export function sessionTable(summaries: readonly SessionSummary[], style: Style, width: number, home = ""): string[] {
	const rows = summaries.map((s) => [
		s.sessionId,
		formatDate(s.updatedAt),
		`${s.agentId}/${s.model}`,
		tildeFolder(s.workspaceDir, home),
		count(s.usage.total),
		oneLine(s.title ?? "(untitled)"),
	]);
	const header = ["ID", "UPDATED", "AGENT/MODEL", "FOLDER", "TOKENS", "TITLE"];
	const widths = fitWidths(
		header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] as string).length))),
		width,
	);
	const format = (row: string[]) =>
		row
			.map((cell, i) => {
				const w = widths[i] as number;
				if (i === TOKENS) return cell.padStart(w);
				const fitted =
					cell.length <= w
						? cell
						: i === ID
							? cell.slice(0, w)
							: i === FOLDER
								? `…${cell.slice(-(w - 1))}`
								: shorten(cell, w);
				return i === TITLE ? fitted : fitted.padEnd(w);
			})
			.join("  ");
	return [style.bold(format(header)), ...rows.map(format)];
}

/** The columns' widths once the widest cells give way (SHRINK) so that a row fits in `width`. */
export function fitWidths(natural: readonly number[], width: number): number[] {
	const widths = [...natural];
	const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
	for (const [column, min] of SHRINK) {
		const excess = total() - width;
		if (excess <= 0) break;
		const w = widths[column] as number;
		widths[column] = Math.max(Math.min(min, w), w - excess);
	}
	return widths;
}

/** A title on one line: a newline or a tab in it would break the table's row. */
function oneLine(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

function tildeFolder(folder: string, home: string): string {
	if (home === "" || home === "/") return folder;
	return folder === home || folder.startsWith(`${home}/`) ? `~${folder.slice(home.length)}` : folder;
}

/** Local time, `2025-01-31 14:05`: sortable and short. */
function formatDate(iso: string): string {
	const date = new Date(iso);
	if (Number.isNaN(date.getTime())) return iso;
	const two = (n: number) => String(n).padStart(2, "0");
	return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

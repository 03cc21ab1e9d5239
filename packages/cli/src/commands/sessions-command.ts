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
	// A pipe has no width: titles are cut only on a terminal.
	const width = sink.isTTY ? sink.columns : Number.POSITIVE_INFINITY;
	for (const line of sessionTable(summaries, sink.style, width, userHome)) sink.line(line);
}

/**
 * Columns: id (whole: `replay` and `--resume` take it, or its start), date, agent/model, the
 * folder it works in (home shortened to ~), tokens, title.
 */
export function sessionTable(summaries: readonly SessionSummary[], style: Style, width: number, home = ""): string[] {
	const rows = summaries.map((s) => [
		s.sessionId,
		formatDate(s.updatedAt),
		`${s.agentId}/${s.model}`,
		tildeFolder(s.workspaceDir, home),
		count(s.usage.total),
		s.title ?? "(untitled)",
	]);
	const header = ["ID", "UPDATED", "AGENT/MODEL", "FOLDER", "TOKENS", "TITLE"];
	const last = header.length - 1;
	const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] as string).length)));
	const fixed = widths.slice(0, last).reduce((sum, w) => sum + w + 2, 0);
	const titleWidth = Math.max(20, width - fixed);
	const format = (row: string[]) =>
		row
			.map((cell, i) => {
				if (i === last) return shorten(cell, titleWidth);
				const w = widths[i] as number;
				return i === last - 1 ? cell.padStart(w) : cell.padEnd(w);
			})
			.join("  ");
	return [style.bold(format(header)), ...rows.map(format)];
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

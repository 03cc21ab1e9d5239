import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyUsage } from "../messages/constructors.js";
import type { OmniMessage, Usage } from "../messages/omni-message.js";
import { PRIVATE_FILE_MODE } from "../trace/private-files.js";
import { sessionDir, traceFileName } from "../trace/trace-files.js";
import { readTrace, type TraceContents } from "../trace/trace-reader.js";
import { newestBegunTrace } from "../trace/unbegun-file.js";

/** What a list of Sessions shows about one. */
export interface SessionSummary {
	sessionId: string;
	agentId: string;
	model: string;
	workspaceDir: string;
	createdAt: string;
	/** When its latest Trace file was last written. */
	updatedAt: string;
	/** Its title, if one was saved; else its first prompt, shortened. */
	title: string | undefined;
	firstPrompt: string | undefined;
	usage: Usage;
	/** How many Trace files (1 + compactions). */
	traceFiles: number;
}

const TITLE_FILE = "title.txt";

/** Keeps a Session's title beside its Trace (never in it: a title is not part of the conversation). */
export function saveTitle(home: string, sessionId: string, title: string): void {
	writeFileSync(join(sessionDir(home, sessionId), TITLE_FILE), `${title.trim()}\n`, { mode: PRIVATE_FILE_MODE });
}

/**
 * Every Session under `home`, newest first. A folder whose Trace cannot be read is skipped, not
 * fatal: one damaged Session must not hide the others.
 */
export function listSessions(home: string): SessionSummary[] {
	const root = join(home, "sessions");
	if (!existsSync(root)) return [];
	const summaries: SessionSummary[] = [];
	for (const sessionId of readdirSync(root)) {
		try {
			const summary = summarize(home, sessionId);
			if (summary !== undefined) summaries.push(summary);
		} catch {
			// A damaged or foreign folder: skipped.
		}
	}
	return summaries.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}

function summarize(home: string, sessionId: string): SessionSummary | undefined {
	const dir = sessionDir(home, sessionId);
	// A file a crash left unbegun (see newestBegunTrace) is not the latest.
	const latest = newestBegunTrace(dir);
	if (latest === 0) return undefined;
	const first = readTrace(join(dir, traceFileName(1)));
	const latestPath = join(dir, traceFileName(latest));
	const last = latest === 1 ? first : readTrace(latestPath);
	const usage = latestUsage(dir, latest, last) ?? emptyUsage();
	const prompt = first.messages.find((m) => m.type === "user_text");
	const firstPrompt = prompt?.type === "user_text" ? prompt.text : undefined;
	const titlePath = join(dir, TITLE_FILE);
	const saved = existsSync(titlePath) ? readFileSync(titlePath, "utf8").trim() : "";
	return {
		sessionId,
		agentId: first.header.agentId,
		model: first.header.model,
		workspaceDir: first.header.workspaceDir,
		createdAt: first.header.createdAt,
		updatedAt: statSync(latestPath).mtime.toISOString(),
		title: saved !== "" ? saved : firstPrompt === undefined ? undefined : promptTitle(firstPrompt),
		firstPrompt,
		usage,
		traceFiles: latest,
	};
}

/**
 * The Session's usage as its newest token_usage says. A file just rotated has none yet: its
 * header's usageBefore says it, and only a Trace older than that field has older files read.
 */
function latestUsage(dir: string, latest: number, newest: TraceContents): Usage | undefined {
	for (let n = latest; n >= 1; n--) {
		if (n < latest && newest.header.usageBefore !== undefined) return newest.header.usageBefore;
		const messages = n === latest ? newest.messages : readTrace(join(dir, traceFileName(n))).messages;
		for (let i = messages.length - 1; i >= 0; i--) {
			const message = messages[i] as OmniMessage;
			if (message.type === "token_usage") return message.session;
		}
	}
	return undefined;
}

/** A Session's title until one is generated: its first prompt's first line, at most 60 characters. */
export function promptTitle(text: string): string {
	const line = text.split("\n")[0]?.trim() ?? "";
	return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

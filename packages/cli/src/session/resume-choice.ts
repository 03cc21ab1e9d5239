import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { omniloopHome, SessionStore, type SessionSummary } from "@omniloop/core";
import { NothingChosen, UsageError } from "../errors.js";
import type { InputStreams } from "../terminal/line-input.js";
import type { Screen } from "../terminal/screen.js";
import { shorten } from "../view/tool-summary.js";

/** How many Sessions the --resume picker offers. */
const PICKER_SIZE = 10;

/** What --resume and --continue asked for: an id, the picker (`true`), or neither. */
export interface ResumeWish {
	resume?: string | true | undefined;
	continue: boolean;
}

export interface ResumeChoiceContext {
	screen: Screen;
	streams: InputStreams;
	env: NodeJS.ProcessEnv;
	cwd: string;
}

/**
 * The Session id --resume or --continue means: --resume <id> as given; --continue the newest
 * Session of this folder; --resume alone a numbered picker (this folder's Sessions first, newest
 * first), which needs a terminal. Undefined when neither was asked for.
 */
export async function chooseResume(wish: ResumeWish, ctx: ResumeChoiceContext): Promise<string | undefined> {
	const picker = wish.resume === true || wish.resume === "";
	if (wish.continue && wish.resume !== undefined) {
		throw new UsageError("--continue and --resume both choose a Session; give one of them");
	}
	if (typeof wish.resume === "string" && !picker) return wish.resume;
	if (!wish.continue && !picker) return undefined;
	const home = omniloopHome(ctx.env);
	const sessions = sessionsForPicker(new SessionStore(home).list(), ctx.cwd);
	if (wish.continue) {
		const newest = sessions[0];
		if (newest === undefined || !sameFolder(newest.workspaceDir, ctx.cwd)) {
			throw new UsageError(
				`no Session in ${ctx.cwd} to continue; \`omniloop sessions\` lists them all, --resume <id> goes on with one`,
			);
		}
		return newest.sessionId;
	}
	const { stdin, stderr } = ctx.streams;
	if (ctx.screen.json || stdin.isTTY !== true || stderr.isTTY !== true) {
		throw new UsageError(
			"--resume without an id asks which Session, and needs a terminal for that: pass --resume <id> (`omniloop sessions` lists them) or --continue for this folder's newest",
		);
	}
	if (sessions.length === 0) throw new UsageError("no Session to resume yet; `omniloop` starts one");
	return pick(sessions.slice(0, PICKER_SIZE), ctx, home);
}

/** This folder's Sessions first, then the others; each group newest first (the store's order). */
export function sessionsForPicker(summaries: readonly SessionSummary[], cwd: string): SessionSummary[] {
	const here = summaries.filter((s) => sameFolder(s.workspaceDir, cwd));
	const elsewhere = summaries.filter((s) => !sameFolder(s.workspaceDir, cwd));
	return [...here, ...elsewhere];
}

/** One picker line: `3. title · 5 min ago · 4 messages` (and the folder, when not this one). */
export function pickerLine(
	n: number,
	summary: SessionSummary,
	messages: number | undefined,
	cwd: string,
	now: number,
	width: number,
): string {
	const title = summary.title ?? summary.firstPrompt ?? "(untitled)";
	const parts = [
		age(summary.updatedAt, now),
		...(messages === undefined ? [] : [`${messages} message${messages === 1 ? "" : "s"}`]),
		...(sameFolder(summary.workspaceDir, cwd) ? [] : [`in ${summary.workspaceDir}`]),
	];
	const tail = ` · ${parts.join(" · ")}`;
	const head = `${String(n).padStart(2)}. `;
	const room = Math.max(20, width - head.length - tail.length - 1);
	return `${head}${shorten(title.replace(/\s+/g, " ").trim(), room)}${tail}`;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago". */
export function age(iso: string, now: number): string {
	const ms = now - new Date(iso).getTime();
	if (Number.isNaN(ms)) return iso;
	const minutes = Math.floor(ms / 60_000);
	if (minutes < 1) return "just now";
	if (minutes < 60) return `${minutes} min ago`;
	const hours = Math.floor(minutes / 60);
	if (hours < 24) return `${hours} h ago`;
	const days = Math.floor(hours / 24);
	return `${days} day${days === 1 ? "" : "s"} ago`;
}

async function pick(sessions: readonly SessionSummary[], ctx: ResumeChoiceContext, home: string): Promise<string> {
	const { screen } = ctx;
	const style = screen.err.style;
	const store = new SessionStore(home);
	const now = Date.now();
	screen.err.line(style.bold("Resume which Session? (this folder's first, newest first)"));
	sessions.forEach((summary, i) => {
		screen.err.line(
			pickerLine(i + 1, summary, messageCount(store, summary.sessionId), ctx.cwd, now, screen.err.columns),
		);
	});
	const rl = createInterface({ input: ctx.streams.stdin, output: ctx.streams.stderr, terminal: true });
	// One pair of listeners for every question asked: the input closing or Ctrl-C cancels the pick.
	let cancel: (() => void) | undefined;
	const cancelled = () => cancel?.();
	rl.on("close", cancelled);
	rl.on("SIGINT", cancelled);
	try {
		for (;;) {
			const answer = await new Promise<string | undefined>((done) => {
				cancel = () => done(undefined);
				rl.question(`[1-${sessions.length}, empty to cancel] `, (line) => done(line));
			});
			const text = answer?.trim() ?? "";
			if (text === "") throw new NothingChosen("no Session chosen; nothing resumed");
			const chosen = /^\d+$/.test(text) ? sessions[Number(text) - 1] : undefined;
			if (chosen !== undefined) return chosen.sessionId;
			screen.err.line(style.yellow(`no Session ${text}: type its number`));
		}
	} finally {
		rl.close();
	}
}

/** The person's messages and the model's answers so far; undefined when the Trace cannot be read. */
function messageCount(store: SessionStore, sessionId: string): number | undefined {
	try {
		return store.history(sessionId).filter((m) => m.type === "user_text" || m.type === "assistant_text").length;
	} catch {
		return undefined;
	}
}

function sameFolder(a: string, b: string): boolean {
	return resolve(a) === resolve(b);
}

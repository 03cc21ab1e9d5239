import { createInterface } from "node:readline/promises";
import { ApiError, markdownOf } from "@omniloop/client";
import { type OmniMessage, omniloopHome, SessionStore } from "@omniloop/core";
import { findText, renameSession, SEARCH_SCAN_LIMIT, type TextMatch } from "@omniloop/core/internal";
import type { CliContext, GlobalOptions } from "../cli-options.js";
import { UsageError } from "../errors.js";
import { EXIT } from "../exit-codes.js";
import { findServer } from "../remote/find-server.js";
import { resolveSessionId } from "../session/session-lookup.js";

/**
 * `omniloop sessions rename|delete|export`: a Session of this home by its id (or the start of it).
 * While a local server runs, rename and delete go through it, so its index and the open web
 * app follow (README "One world"); otherwise — or for a Session it does not host, made in a
 * folder outside its workspace roots — the files beside the Trace are changed here.
 */
export async function renameCommand(id: string, title: string, ctx: CliContext): Promise<number> {
	const home = omniloopHome(ctx.env);
	const sessionId = resolveSessionId(home, id);
	const server = await findServer(home, ctx.env);
	const onServer = await unlessNotHosted(() =>
		server?.client.call("PATCH /chat/sessions/:id", { params: { id: sessionId }, body: { title } }),
	);
	const saved = onServer === undefined ? renameSession(home, sessionId, title) : (onServer.title ?? title);
	ctx.screen.info.line(`Session ${sessionId} is now titled: ${saved}`);
	return EXIT.ok;
}

/**
 * The server's answer to a call about a Session, or undefined when there is no server or it does
 * not host that Session (404: its folder lies outside the server's workspace roots) — the Session
 * is then this home's alone, and the CLI changes its files itself.
 */
async function unlessNotHosted<T>(call: () => Promise<T> | undefined): Promise<T | undefined> {
	try {
		return await call();
	} catch (error) {
		if (error instanceof ApiError && error.status === 404) return undefined;
		throw error;
	}
}

export async function deleteCommand(id: string, options: GlobalOptions, ctx: CliContext): Promise<number> {
	const home = omniloopHome(ctx.env);
	const sessionId = resolveSessionId(home, id);
	const title = new SessionStore(home).list().find((s) => s.sessionId === sessionId)?.title ?? "untitled";
	if (!options.yes && !(await confirm(ctx, `Delete Session ${sessionId} (${title}) and its Trace? [y/N] `))) {
		ctx.screen.notice(`kept Session ${sessionId}`);
		return EXIT.ok;
	}
	const server = await findServer(home, ctx.env);
	const onServer = await unlessNotHosted(async () => {
		if (server === undefined) return undefined;
		await server.client.call("DELETE /chat/sessions/:id", { params: { id: sessionId } });
		return true;
	});
	if (onServer === undefined) new SessionStore(home).deleteSync(sessionId);
	ctx.screen.info.line(`deleted Session ${sessionId}`);
	return EXIT.ok;
}

/** A line from stdin: y or yes is a yes; anything else (or no input) keeps the Session. */
async function confirm(ctx: CliContext, question: string): Promise<boolean> {
	const rl = createInterface({ input: ctx.streams.stdin, output: ctx.streams.stderr, terminal: false });
	try {
		ctx.streams.stderr.write(question);
		const answer = await new Promise<string | undefined>((resolve) => {
			rl.once("line", resolve);
			rl.once("close", () => resolve(undefined));
		});
		return /^\s*y(es)?\s*$/i.test(answer ?? "");
	} finally {
		rl.close();
	}
}

/**
 * `omniloop sessions search <words>`: the Sessions whose title or messages hold the words, newest
 * first, each with where. Through a running local server (its `?q=`), else over this home's Traces,
 * bounded the same way: every title, the messages of the SEARCH_SCAN_LIMIT newest Sessions.
 */
export async function searchCommand(words: string, ctx: CliContext): Promise<number> {
	if (words.trim() === "") throw new UsageError("sessions search: say what to look for");
	const home = omniloopHome(ctx.env);
	const server = await findServer(home, ctx.env);
	const hits =
		server === undefined
			? searchHome(home, words)
			: (await server.client.searchSessions(words)).sessions.map((s) => ({
					id: s.id,
					title: s.title ?? "(untitled)",
					match: s.match,
				}));
	if (ctx.screen.json) {
		for (const hit of hits) ctx.screen.out.write(`${JSON.stringify(hit)}\n`);
		return EXIT.ok;
	}
	if (hits.length === 0) ctx.screen.info.line(`no Session's title or messages hold "${words.trim()}"`);
	for (const hit of hits) {
		ctx.screen.info.line(`${hit.id}  ${hit.title}`);
		if (hit.match.in === "text") ctx.screen.info.line(ctx.screen.info.style.dim(`    ${hit.match.snippet}`));
	}
	return EXIT.ok;
}

interface Hit {
	id: string;
	title: string;
	match: { in: "title" } | ({ in: "text" } & TextMatch);
}

function searchHome(home: string, words: string): Hit[] {
	const needle = words.trim().replace(/\s+/g, " ").toLowerCase();
	const hits: Hit[] = [];
	let scanned = 0;
	for (const summary of new SessionStore(home).list()) {
		const title = summary.title ?? "(untitled)";
		if (summary.title?.replace(/\s+/g, " ").toLowerCase().includes(needle)) {
			hits.push({ id: summary.sessionId, title, match: { in: "title" } });
			continue;
		}
		if (scanned++ >= SEARCH_SCAN_LIMIT) continue;
		const match = findText(traceMessages(home, summary.sessionId), words);
		if (match !== undefined) hits.push({ id: summary.sessionId, title, match: { in: "text", ...match } });
	}
	return hits;
}

/** `--format md` (default) or `json`: the Session's OmniMessages as its Trace files keep them. */
export function exportCommand(id: string, format: string, ctx: CliContext): number {
	if (format !== "md" && format !== "json") throw new UsageError(`--format: "${format}" is neither md nor json`);
	const home = omniloopHome(ctx.env);
	const sessionId = resolveSessionId(home, id);
	const messages = traceMessages(home, sessionId);
	if (format === "json") ctx.screen.out.write(`${JSON.stringify(messages, null, 2)}\n`);
	else {
		const title = new SessionStore(home).list().find((s) => s.sessionId === sessionId)?.title ?? "Untitled Session";
		ctx.screen.out.write(markdownOf(title, messages));
	}
	return EXIT.ok;
}

function traceMessages(home: string, sessionId: string): OmniMessage[] {
	return new SessionStore(home).history(sessionId);
}

import { existsSync } from "node:fs";
import { join } from "node:path";
import {
	latestTraceNumber,
	listSessions,
	newestBegunTrace,
	readTrace,
	sessionDir,
	type TraceHeader,
	traceFileName,
} from "@omniloop/core";
import { UsageError } from "../errors.js";

/** True when `home` holds a Session `id` with at least one Trace file. */
function hasSession(home: string, id: string): boolean {
	const dir = sessionDir(home, id);
	return existsSync(dir) && latestTraceNumber(dir) > 0;
}

/**
 * The full id of a Session given its id or an unambiguous start of it (ids are long UUIDs; the
 * first few characters are what people copy). Unknown or ambiguous ids are usage errors.
 */
export function resolveSessionId(home: string, idOrPrefix: string): string {
	const wanted = idOrPrefix.trim();
	// A path separator would let the id escape the sessions folder.
	if (wanted === "" || /[/\\]/.test(wanted) || wanted === "." || wanted === "..") {
		throw new UsageError(`"${idOrPrefix}" is not a session id; \`omniloop sessions\` lists them`);
	}
	if (hasSession(home, wanted)) return wanted;
	const matches = listSessions(home).filter((summary) => summary.sessionId.startsWith(wanted));
	if (matches.length === 1) return (matches[0] as { sessionId: string }).sessionId;
	if (matches.length > 1) {
		const ids = matches.slice(0, 4).map((m) => m.sessionId);
		throw new UsageError(`session id "${wanted}" is ambiguous: ${ids.join(", ")}${matches.length > 4 ? ", …" : ""}`);
	}
	throw new UsageError(`no session "${wanted}" in ${join(home, "sessions")}; \`omniloop sessions\` lists them`);
}

/** The header of a Session's latest Trace file: its agent, model and model name. */
export function readSessionHeader(home: string, sessionId: string): TraceHeader {
	const dir = sessionDir(home, sessionId);
	return readTrace(join(dir, traceFileName(newestBegunTrace(dir)))).header;
}

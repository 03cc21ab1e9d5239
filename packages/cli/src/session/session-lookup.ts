import { join } from "node:path";
import { SessionStore, type TraceHeader } from "@omniloop/core";
import { UsageError } from "../errors.js";

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
	const sessions = new SessionStore(home);
	if (sessions.has(wanted)) return wanted;
	const matches = sessions.list().filter((summary) => summary.sessionId.startsWith(wanted));
	if (matches.length === 1) return (matches[0] as { sessionId: string }).sessionId;
	if (matches.length > 1) {
		const ids = matches.slice(0, 4).map((m) => m.sessionId);
		throw new UsageError(`session id "${wanted}" is ambiguous: ${ids.join(", ")}${matches.length > 4 ? ", …" : ""}`);
	}
	throw new UsageError(`no session "${wanted}" in ${join(home, "sessions")}; \`omniloop sessions\` lists them`);
}

/** The header of a Session's latest Trace file: its agent, model and model name. */
export function readSessionHeader(home: string, sessionId: string): TraceHeader {
	const header = new SessionStore(home).latestHeader(sessionId);
	// A Trace file a crash left before its first line was written says nothing yet.
	if (header === undefined)
		throw new UsageError(`Session ${sessionId} has no readable Trace header; it cannot be resumed`);
	return header;
}

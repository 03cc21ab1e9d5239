import { existsSync } from "node:fs";
import { join } from "node:path";
import { newestBegunTrace, type OmniMessage, readTrace, sessionDir, traceFileName } from "@omniloop/core";

/**
 * Every message of a Session's Trace files, in order: `trace.jsonl`, `trace_002.jsonl`, … (one
 * file per model context, so the whole history spans them; a newest file a crash left unbegun is
 * passed over). No partials: the Trace has none.
 */
export function traceMessages(home: string, sessionId: string): OmniMessage[] {
	const dir = sessionDir(home, sessionId);
	if (!existsSync(dir)) return [];
	const latest = newestBegunTrace(dir);
	const messages: OmniMessage[] = [];
	let lastSeq = 0;
	for (let n = 1; n <= latest; n++) {
		const path = join(dir, traceFileName(n));
		if (!existsSync(path)) continue;
		for (const message of readTrace(path).messages) {
			// Seqs only grow; a repeat (a line rewritten by a resume) is not a second message.
			if (message.seq <= lastSeq) continue;
			lastSeq = message.seq;
			messages.push(message);
		}
	}
	return messages;
}

/** The header of a Session's latest Trace file, or undefined when it has none. */
export function latestHeader(home: string, sessionId: string) {
	const dir = sessionDir(home, sessionId);
	if (!existsSync(dir)) return undefined;
	const latest = newestBegunTrace(dir);
	return latest === 0 ? undefined : readTrace(join(dir, traceFileName(latest))).header;
}

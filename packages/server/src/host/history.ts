import { existsSync } from "node:fs";
import { join } from "node:path";
import {
	newestBegunTrace,
	type OmniMessage,
	readTrace,
	readTraceHeader,
	sessionDir,
	traceFileName,
} from "@omniloop/core";
import type { TraceDamageLog } from "./trace-damage.js";

/**
 * The messages of a Session's Trace files after seq `after`, in order: `trace.jsonl`,
 * `trace_002.jsonl`, … (one file per model context, so the whole history spans them; a newest
 * file a crash left unbegun is passed over). No partials: the Trace has none.
 *
 * Only the files that can hold such messages are parsed: a file's header says every seq up to
 * its `seqReserved` may have been used before it began, so the files before the newest one whose
 * header is at most `after` hold nothing later (a reconnect reads only the newest file or two).
 * A damaged line is left out, and told to `damage`.
 */
export function traceMessages(home: string, sessionId: string, after = 0, damage?: TraceDamageLog): OmniMessage[] {
	const dir = sessionDir(home, sessionId);
	if (!existsSync(dir)) return [];
	const latest = newestBegunTrace(dir);
	const messages: OmniMessage[] = [];
	let lastSeq = after;
	for (let n = firstFileAfter(dir, latest, after); n <= latest; n++) {
		const path = join(dir, traceFileName(n));
		if (!existsSync(path)) continue;
		const trace = readTrace(path);
		damage?.seen(traceFileName(n), trace.damagedLines);
		for (const message of trace.messages) {
			// Seqs only grow; a repeat (a line rewritten by a resume) is not a second message.
			if (message.seq <= lastSeq) continue;
			lastSeq = message.seq;
			messages.push(message);
		}
	}
	return messages;
}

/** The first file that may hold a message after `after` (1 when a header older than seqReserved says nothing). */
function firstFileAfter(dir: string, latest: number, after: number): number {
	if (after <= 0) return 1;
	for (let n = latest; n > 1; n--) {
		const path = join(dir, traceFileName(n));
		if (!existsSync(path)) continue;
		const reserved = readTraceHeader(path)?.seqReserved;
		if (reserved !== undefined && reserved <= after) return n;
	}
	return 1;
}

/** The Session's highest seq on disk (0 for none): from its newest file that holds a message. */
export function lastTraceSeq(home: string, sessionId: string): number {
	const dir = sessionDir(home, sessionId);
	if (!existsSync(dir)) return 0;
	for (let n = newestBegunTrace(dir); n >= 1; n--) {
		const path = join(dir, traceFileName(n));
		if (!existsSync(path)) continue;
		const { messages } = readTrace(path);
		// The highest, not the last: a line rewritten by a resume may repeat an earlier seq.
		if (messages.length > 0) return messages.reduce((max, m) => Math.max(max, m.seq), 0);
	}
	return 0;
}

/** The header of a Session's latest Trace file, or undefined when it has none. */
export function latestHeader(home: string, sessionId: string) {
	const dir = sessionDir(home, sessionId);
	if (!existsSync(dir)) return undefined;
	const latest = newestBegunTrace(dir);
	return latest === 0 ? undefined : readTraceHeader(join(dir, traceFileName(latest)));
}

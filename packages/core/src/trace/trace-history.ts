import { existsSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "../messages/omni-message.js";
import { traceFileName } from "./trace-files.js";
import type { TraceHeader } from "./trace-header.js";
import { type DamagedLine, readTrace, readTraceHeader } from "./trace-reader.js";
import { newestBegunTrace } from "./unbegun-file.js";

/** Told the damaged lines each read file holds (none included: a file read again may be whole now). */
export type DamageSeen = (file: string, lines: readonly DamagedLine[]) => void;

/** One Trace file of a Session as read: which of how many, its header and its messages. */
export interface TraceFileContents {
	n: number;
	of: number;
	header: TraceHeader;
	messages: OmniMessage[];
}

/**
 * The messages of the Trace files in `dir` after seq `after`, in order (one file per model
 * context, so the whole history spans them; a newest file a crash left unbegun is passed over).
 * Only the files that can hold such messages are parsed: a file's header says every seq up to its
 * `seqReserved` may have been used before it began, so the files before the newest one whose
 * header is at most `after` hold nothing later (a reconnect reads only the newest file or two).
 */
export function messagesAfter(dir: string, after: number, damage?: DamageSeen): OmniMessage[] {
	if (!existsSync(dir)) return [];
	const latest = newestBegunTrace(dir);
	const messages: OmniMessage[] = [];
	let lastSeq = after;
	for (let n = firstFileAfter(dir, latest, after); n <= latest; n++) {
		const path = join(dir, traceFileName(n));
		if (!existsSync(path)) continue;
		const trace = readTrace(path);
		damage?.(traceFileName(n), trace.damagedLines);
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

/** The highest seq in the Trace files of `dir` (0 for none): from the newest file that holds a message. */
export function highestSeq(dir: string): number {
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

/** Every begun Trace file of `dir`, oldest first. */
export function traceFiles(dir: string): TraceFileContents[] {
	if (!existsSync(dir)) return [];
	const of = newestBegunTrace(dir);
	const files: TraceFileContents[] = [];
	for (let n = 1; n <= of; n++) {
		const { header, messages } = readTrace(join(dir, traceFileName(n)));
		files.push({ n, of, header, messages });
	}
	return files;
}

import { closeSync, openSync, readFileSync, readSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { PRIVATE_FILE_MODE } from "@omniloop/core/internal";

// The byte-level work of copying Trace files to and from the database (trace-sync.ts): whole
// lines only, never a line the event log does not hold yet, a local copy made the database's.

/** The file's bytes from `from` up to its last newline (a line being written is not taken yet). */
export function wholeLinesFrom(path: string, from: number): Buffer {
	const size = statSync(path).size;
	if (size <= from) return Buffer.alloc(0);
	const buffer = Buffer.alloc(size - from);
	const fd = openSync(path, "r");
	try {
		readSync(fd, buffer, 0, buffer.length, from);
	} finally {
		closeSync(fd);
	}
	return buffer.subarray(0, buffer.lastIndexOf(0x0a) + 1);
}

/**
 * The lines of `bytes` up to the first message with a seq past `durableSeq` (header and
 * reservation lines carry none): what the event log already holds.
 */
export function durablePrefix(bytes: Buffer, durableSeq: number): Buffer {
	let end = 0;
	while (end < bytes.length) {
		const next = bytes.indexOf(0x0a, end) + 1;
		if (seqOf(bytes.subarray(end, next)) > durableSeq) break;
		end = next;
	}
	return bytes.subarray(0, end);
}

/** A Trace line's seq; 0 for a line with none (a header, a reservation, one that does not parse). */
function seqOf(line: Buffer): number {
	try {
		const { seq } = JSON.parse(line.toString("utf8")) as { seq?: unknown };
		return typeof seq === "number" ? seq : 0;
	} catch {
		return 0;
	}
}

/** Whether the chunks follow each other from exactly `from` on (none at all is nothing new). */
export function contiguousFrom(chunks: readonly { offset: number; bytes: Buffer }[], from: number): boolean {
	let at = from;
	for (const chunk of chunks) {
		if (chunk.offset !== at) return false;
		at += chunk.bytes.length;
	}
	return true;
}

/** Whether the file here still holds the `size` bytes it shares with the database. */
export function holds(path: string, size: number): boolean {
	const here = statSync(path, { throwIfNoEntry: false });
	return here !== undefined && here.size >= size;
}

/** Makes the file its first `from` bytes followed by `tail` (nothing is written when it is that already). */
export function replaceFrom(path: string, from: number, tail: Buffer): void {
	const here = statSync(path, { throwIfNoEntry: false });
	if (from === 0) {
		// The same size is not the same bytes (a stale line as long as the database's).
		if (here?.size !== tail.length || !readFileSync(path).equals(tail))
			writeFileSync(path, tail, { mode: PRIVATE_FILE_MODE });
		return;
	}
	if (here?.size === from + tail.length && tail.length === 0) return;
	truncateSync(path, from);
	if (tail.length > 0) appendBytes(path, tail);
}

export function appendBytes(path: string, bytes: Buffer): void {
	const fd = openSync(path, "a", PRIVATE_FILE_MODE);
	try {
		writeSync(fd, bytes);
	} finally {
		closeSync(fd);
	}
}

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { latestTraceNumber, readTrace, traceFileName } from "@omniloop/core/internal";
import { appendBytes } from "./trace-bytes.js";

/** The first line of a Trace file a compaction began, written with the compaction's `compaction_end` row. */
export interface BegunFile {
	name: string;
	/** The file's header line, newline included, byte for byte as the file holds it. */
	header: string;
}

/** An ok compaction rotates the Trace: what follows it goes in the Session's next file (core's compaction.ts). */
function rotates(message: OmniMessage): boolean {
	return message.type === "compaction_end" && message.status === "ok";
}

/**
 * The file the compaction that ended at `compactionSeq` began, as it is on disk now: the newest
 * file, holding nothing from before that seq. Undefined when there is none (the Trace is off, or
 * rotating failed): a taker then goes on in the file before (`appendMissing`).
 */
export function begunBy(dir: string, compactionSeq: number): BegunFile | undefined {
	const n = latestTraceNumber(dir);
	if (n < 2) return undefined;
	const name = traceFileName(n);
	try {
		const bytes = readFileSync(join(dir, name), "utf8");
		const end = bytes.indexOf("\n");
		if (end === -1) return undefined;
		const header = JSON.parse(bytes.slice(0, end)) as { type?: unknown; file?: unknown };
		if (header.type !== "trace_header" || header.file !== n) return undefined;
		if (readTrace(join(dir, name)).messages.some((m) => m.seq <= compactionSeq)) return undefined;
		return { name, header: bytes.slice(0, end + 1) };
	} catch {
		return undefined;
	}
}

/**
 * A taker's files (the database's copy) get the event log's complete messages they lack, each in
 * the file the process that emitted it wrote it to: after an ok `compaction_end`, the next file,
 * whose header reached the database with that row (cluster/events/event-log.ts) — a file a compaction
 * began may hold no message yet, so the last message is looked for in the files before it too.
 * Then a reservation at `floor` in the file the Task goes on in. Returns the seq of a compaction
 * whose file is not there (it goes on in the file before, its context from before the compaction).
 */
export async function appendMissing(
	dir: string,
	floor: number,
	messagesAfter: (seq: number) => Promise<readonly OmniMessage[]>,
): Promise<{ lostCompaction: number | undefined }> {
	const latest = latestTraceNumber(dir);
	let file = latest;
	let last = readTrace(join(dir, traceFileName(file))).messages.at(-1);
	while (last === undefined && file > 1) {
		file--;
		last = readTrace(join(dir, traceFileName(file))).messages.at(-1);
	}
	if (last === undefined) file = latest;
	let lostCompaction: number | undefined;
	const lines = new Map<number, string[]>();
	const add = (n: number, line: string): void => {
		const list = lines.get(n);
		if (list === undefined) lines.set(n, [line]);
		else list.push(line);
	};
	const place = (message: OmniMessage): void => {
		if (!rotates(message)) return;
		if (file < latest) file++;
		else lostCompaction = message.seq;
	};
	if (last !== undefined) place(last);
	const missing = await messagesAfter(last?.seq ?? 0);
	for (const message of missing) {
		add(file, `${JSON.stringify(message)}\n`);
		place(message);
	}
	const upTo = Math.max(floor, missing.at(-1)?.seq ?? last?.seq ?? 0);
	add(file, `${JSON.stringify({ type: "seq_reserved", upTo })}\n`);
	for (const [n, text] of lines) appendBytes(join(dir, traceFileName(n)), Buffer.from(text.join("")));
	return { lostCompaction };
}

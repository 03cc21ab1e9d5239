import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sessionDir, TraceFormatError, traceFileName } from "@omniloop/core";
import { afterEach, describe, expect, it } from "vitest";
import { lastTraceSeq, traceMessages } from "./history.js";
import { TraceDamageLog } from "./trace-damage.js";

const homes: string[] = [];
afterEach(() => {
	for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

const header = (file: number, seqReserved?: number) => ({
	type: "trace_header",
	version: 1,
	sessionId: "s",
	agentId: "a",
	file,
	createdAt: "2026-12-01T00:00:00.000Z",
	workspaceDir: "/w",
	model: "fake:m",
	turnsBefore: 0,
	...(seqReserved === undefined ? {} : { seqReserved }),
});
const text = (seq: number) => ({ id: `m${seq}`, ts: 0, seq, type: "user_text", text: `t${seq}` });

/** A Session whose Trace files hold these lines (a string is written as it is: a damaged line). */
function session(files: unknown[][]): string {
	const home = mkdtempSync(join(tmpdir(), "omniloop-history-"));
	homes.push(home);
	const dir = sessionDir(home, "s");
	mkdirSync(dir, { recursive: true });
	for (const [i, lines] of files.entries()) {
		const written = lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line)));
		writeFileSync(join(dir, traceFileName(i + 1)), `${written.join("\n")}\n`);
	}
	return home;
}

describe("a Session's history from its Trace files", () => {
	// Seqs 1–3, then 4–6 (and a repeat of 3), then a file just begun.
	const files = (): unknown[][] => [
		[header(1, 0), text(1), text(2), text(3)],
		[header(2, 3), text(3), text(4), text(5), text(6)],
		[header(3, 8)],
	];

	it("spans the files in order, a repeated line once, and after a seq holds only what follows it", () => {
		const home = session(files());
		expect(traceMessages(home, "s").map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
		for (const after of [0, 2, 3, 5, 6, 9]) {
			expect(traceMessages(home, "s", after).map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6].filter((s) => s > after));
		}
		expect(lastTraceSeq(home, "s")).toBe(6);
	});

	it("reads only the files that can hold a later message: the headers' seqReserved say where to begin", () => {
		const broken = files();
		broken[0]?.splice(2, 0, "{not json");
		const home = session(broken);
		// After 3, the second file's header (seqReserved 3) says the first one holds nothing later.
		const unread = new TraceDamageLog(home, "s");
		expect(traceMessages(home, "s", 3, unread).map((m) => m.seq)).toEqual([4, 5, 6]);
		expect(unread.list()).toEqual([]);
		const read = new TraceDamageLog(home, "s");
		expect(traceMessages(home, "s", 2, read).map((m) => m.seq)).toEqual([3, 4, 5, 6]);
		expect(read.list()).toEqual([{ file: "trace.jsonl", line: 3, problem: expect.stringMatching(/^not valid JSON/) }]);
	});

	it("a Trace older than seqReserved headers is read whole; its damaged line is left out and listed", () => {
		const old = files().map(([, ...rest], i) => [header(i + 1), ...rest]);
		old[0]?.splice(2, 0, "{not json");
		const home = session(old);
		const damage = new TraceDamageLog(home, "s");
		expect(traceMessages(home, "s", 5, damage).map((m) => m.seq)).toEqual([6]);
		expect(damage.list()).toMatchObject([{ file: "trace.jsonl", line: 3 }]);
	});

	it("a Trace whose header line is damaged is a TraceFormatError naming the file and line", () => {
		const bad = files();
		bad[0]?.splice(0, 1, "{not a header");
		expect(() => traceMessages(session(bad), "s")).toThrow(TraceFormatError);
	});
});

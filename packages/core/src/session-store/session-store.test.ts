import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sessionDir, traceFileName } from "../trace/trace-files.js";
import { type DamagedLine, TraceFormatError } from "../trace/trace-reader.js";
import { SessionStore } from "./session-store.js";

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

/** A Session "s" whose Trace files hold these lines (a string is written as it is: a damaged line). */
function session(files: unknown[][]): SessionStore {
	const home = mkdtempSync(join(tmpdir(), "omniloop-history-"));
	homes.push(home);
	const dir = sessionDir(home, "s");
	mkdirSync(dir, { recursive: true });
	for (const [i, lines] of files.entries()) {
		const written = lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line)));
		writeFileSync(join(dir, traceFileName(i + 1)), `${written.join("\n")}\n`);
	}
	return new SessionStore(home);
}

/** What a read reported damaged, per file, as the last read of that file found it. */
function damageLog() {
	const found = new Map<string, readonly DamagedLine[]>();
	const onDamage = (file: string, lines: readonly DamagedLine[]) => {
		if (lines.length === 0) found.delete(file);
		else found.set(file, lines);
	};
	return { found, onDamage };
}

describe("a SessionStore reads a Session's history from its Trace files", () => {
	// Seqs 1–3, then 4–6 (and a repeat of 3), then a file just begun.
	const files = (): unknown[][] => [
		[header(1, 0), text(1), text(2), text(3)],
		[header(2, 3), text(3), text(4), text(5), text(6)],
		[header(3, 8)],
	];

	it("spans the files in order, a repeated line once, and after a seq holds only what follows it", () => {
		const store = session(files());
		expect(store.history("s").map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
		for (const after of [0, 2, 3, 5, 6, 9]) {
			expect(store.history("s", { after }).map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6].filter((s) => s > after));
		}
		expect(store.lastSeq("s")).toBe(6);
		expect(store.latestHeader("s")).toMatchObject({ file: 3, seqReserved: 8 });
		expect(store.traceFiles("s").map((f) => [f.n, f.of, f.messages.length])).toEqual([
			[1, 3, 3],
			[2, 3, 4],
			[3, 3, 0],
		]);
	});

	it("reads only the files that can hold a later message: the headers' seqReserved say where to begin", () => {
		const broken = files();
		broken[0]?.splice(2, 0, "{not json");
		const store = session(broken);
		// After 3, the second file's header (seqReserved 3) says the first one holds nothing later.
		const unread = damageLog();
		expect(store.history("s", { after: 3, onDamage: unread.onDamage }).map((m) => m.seq)).toEqual([4, 5, 6]);
		expect([...unread.found]).toEqual([]);
		const read = damageLog();
		expect(store.history("s", { after: 2, onDamage: read.onDamage }).map((m) => m.seq)).toEqual([3, 4, 5, 6]);
		expect([...read.found]).toEqual([
			["trace.jsonl", [{ line: 3, problem: expect.stringMatching(/^not valid JSON/) }]],
		]);
	});

	it("a Trace older than seqReserved headers is read whole; its damaged line is left out and listed", () => {
		const old = files().map(([, ...rest], i) => [header(i + 1), ...rest]);
		old[0]?.splice(2, 0, "{not json");
		const store = session(old);
		const damage = damageLog();
		expect(store.history("s", { after: 5, onDamage: damage.onDamage }).map((m) => m.seq)).toEqual([6]);
		expect([...damage.found]).toMatchObject([["trace.jsonl", [{ line: 3 }]]]);
	});

	it("a Trace whose header line is damaged is a TraceFormatError naming the file and line", () => {
		const bad = files();
		bad[0]?.splice(0, 1, "{not a header");
		expect(() => session(bad).history("s")).toThrow(TraceFormatError);
	});
});

describe("a SessionStore's Sessions", () => {
	it("knows which exist, lists the damaged lines a resume moved aside, and deletes a Session whole", async () => {
		const store = session([[header(1, 0), text(1)]]);
		writeFileSync(join(store.folder("s"), "trace.jsonl.damaged-17"), "{not json\n");
		writeFileSync(join(store.folder("s"), "origin.json"), "{}\n");
		expect(store.has("s")).toBe(true);
		expect(store.has("t")).toBe(false);
		expect(store.lastSeq("t")).toBe(0);
		expect(store.history("t")).toEqual([]);
		expect(store.latestHeader("t")).toBeUndefined();
		expect(store.movedAside("s")).toEqual([{ file: "trace.jsonl", movedTo: "trace.jsonl.damaged-17" }]);
		store.saveTitle("s", "  A title ");
		expect(store.list()).toMatchObject([{ sessionId: "s", title: "A title" }]);
		await store.delete("s");
		expect(store.has("s")).toBe(false);
		expect(store.list()).toEqual([]);
		await store.delete("s");
		const other = session([[header(1, 0), text(1)]]);
		other.deleteSync("s");
		expect(other.has("s")).toBe(false);
	});
});

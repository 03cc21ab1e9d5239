import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionDir, traceFileName } from "@omniloop/core";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { TraceSync } from "../src/cluster/trace-sync.js";
import { openPostgresStore } from "../src/store/postgres.js";
import { onCleanup, tempDirs } from "./harness.js";
import { freshDatabase } from "./pg-database.js";

const header = JSON.stringify({
	type: "trace_header",
	version: 1,
	sessionId: "s",
	agentId: "a",
	file: 1,
	createdAt: "2026-12-01T00:00:00.000Z",
	workspaceDir: "/w",
	model: "fake:m",
	turnsBefore: 0,
	seqReserved: 0,
});
const line = (seq: number, text: string) =>
	`${JSON.stringify({ id: `m${seq}`, ts: 0, seq, type: "user_text", text })}\n`;

/** A process's home, its copy of the Session's first Trace file, and its TraceSync on a pool that counts fetched bytes. */
function processOn(pool: pg.Pool) {
	const { home } = tempDirs();
	const path = join(sessionDir(home, "s"), traceFileName(1));
	const fetched = { bytes: 0 };
	const counting = {
		query: async (text: string, values: unknown[]) => {
			const result = await pool.query(text, values);
			for (const row of result.rows as { bytes?: Buffer }[]) fetched.bytes += row.bytes?.length ?? 0;
			return result;
		},
	} as unknown as pg.Pool;
	return { path, fetched, sync: new TraceSync(counting, home), text: () => readFileSync(path, "utf8") };
}

describe("Trace files through the database", () => {
	it("a claim fetches only what lies beyond the bytes shared, and a copy with lines the database refused becomes the database's", async () => {
		const { pool, store } = await openPostgresStore(await freshDatabase());
		onCleanup(() => store.close());
		const a = processOn(pool);
		const b = processOn(pool);
		mkdirSync(join(a.path, ".."), { recursive: true });
		writeFileSync(a.path, `${header}\n${line(1, "one")}${line(2, "two")}`);
		await a.sync.upload("s");

		await b.sync.download("s", 0);
		expect(b.text()).toBe(a.text());
		appendFileSync(b.path, line(3, "three on b"));
		await b.sync.upload("s");

		// A, which had lost the Session, wrote a line of its own where B's went: the database refuses it.
		appendFileSync(a.path, line(3, "stale on a"));
		await expect(a.sync.upload("s")).rejects.toThrow(/another process wrote its Trace \(trace\.jsonl\)/);
		// Nothing more of A's copy goes up until a claim brings the database's back.
		appendFileSync(a.path, line(4, "more stale on a"));
		await a.sync.upload("s");
		await b.sync.download("s", 0);
		expect(b.text()).not.toContain("stale");
		await a.sync.download("s", 0);
		expect(a.text()).toBe(b.text());

		// From here A shares the whole file: the next claim fetches only B's new line.
		appendFileSync(b.path, line(4, "four on b"));
		await b.sync.upload("s");
		a.fetched.bytes = 0;
		await a.sync.download("s", 0);
		expect(a.text()).toBe(b.text());
		expect(a.fetched.bytes).toBe(Buffer.byteLength(line(4, "four on b")));
	});
});

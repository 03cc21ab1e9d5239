import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionDir, traceFileName } from "@omniloop/core/internal";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { TraceSync } from "../src/cluster/trace/trace-sync.js";
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
	return {
		path,
		fetched,
		sync: new TraceSync(counting, home, (error) => {
			throw error;
		}),
		text: () => readFileSync(path, "utf8"),
	};
}

/** What a claim does to the lease row: a new epoch for the Session "s". */
async function claim(pool: pg.Pool, epoch: number): Promise<number> {
	await pool.query(
		`insert into session_leases (session_id, owner, expires_at, epoch) values ('s', 'p', 0, $1)
		on conflict (session_id) do update set epoch = excluded.epoch`,
		[epoch],
	);
	return epoch;
}

const none = async () => [];

describe("Trace files through the database", () => {
	it("a claim fetches only what lies beyond the bytes shared, and a copy with lines the database refused becomes the database's", async () => {
		const { pool, store } = await openPostgresStore(await freshDatabase());
		onCleanup(() => store.close());
		const a = processOn(pool);
		const b = processOn(pool);
		mkdirSync(join(a.path, ".."), { recursive: true });
		writeFileSync(a.path, `${header}\n${line(1, "one")}${line(2, "two")}`);
		const first = await claim(pool, 1);
		await a.sync.upload("s", first, 2);

		const second = await claim(pool, 2);
		await b.sync.download("s", 0, none);
		expect(b.text()).toBe(a.text());
		appendFileSync(b.path, line(3, "three on b"));
		await b.sync.upload("s", second, 3);

		// A, which had lost the Session, wrote a line of its own: the database refuses it (fenced by epoch).
		appendFileSync(a.path, line(3, "stale on a"));
		await expect(a.sync.upload("s", first, 3)).rejects.toThrow(/another process holds it now/);
		// Nothing more of A's copy goes up until a claim brings the database's back.
		appendFileSync(a.path, line(4, "more stale on a"));
		await a.sync.upload("s", first, 4);
		await b.sync.download("s", 0, none);
		expect(b.text()).not.toContain("stale");
		await a.sync.download("s", 0, none);
		expect(a.text()).toBe(b.text());

		// From here A shares the whole file: the next claim fetches only B's new line.
		appendFileSync(b.path, line(4, "four on b"));
		await b.sync.upload("s", second, 4);
		a.fetched.bytes = 0;
		await a.sync.download("s", 0, none);
		expect(a.text()).toBe(b.text());
		expect(a.fetched.bytes).toBe(Buffer.byteLength(line(4, "four on b")));
	});

	it("only lines the event log holds go up; a download adds the event log's messages the Trace lacks and a reservation at the floor", async () => {
		const { pool, store } = await openPostgresStore(await freshDatabase());
		onCleanup(() => store.close());
		const a = processOn(pool);
		const b = processOn(pool);
		mkdirSync(join(a.path, ".."), { recursive: true });
		writeFileSync(a.path, `${header}\n${line(1, "one")}${line(2, "two")}${line(3, "three")}`);
		const epoch = await claim(pool, 1);
		// Seq 3 is not durable yet: it stays here.
		await a.sync.upload("s", epoch, 2);
		await b.sync.download("s", 0, none);
		expect(b.text()).not.toContain("three");
		// A died; the event log has 3 (complete) and partials up to 9: B gets 3, and goes on above 9.
		const three = JSON.parse(line(3, "three"));
		await b.sync.download("s", 9, async (after) => (after === 2 ? [three] : []));
		const lines = b.text().trim().split("\n");
		expect(JSON.parse(lines.at(-2) as string)).toEqual(three);
		expect(JSON.parse(lines.at(-1) as string)).toEqual({ type: "seq_reserved", upTo: 9 });
	});
});

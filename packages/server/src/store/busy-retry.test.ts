import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { CompiledQuery, Kysely } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { lockHolder } from "../../test/sqlite-lock-holder.js";
import { BusyRetryDialect } from "./busy-retry.js";
import { openSqliteStore } from "./sqlite.js";
import { withStatementCache } from "./statement-cache.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempFile(): string {
	const dir = mkdtempSync(join(tmpdir(), "omniloop-store-"));
	cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
	return join(dir, "omniloop.db");
}

/**
 * A Kysely on `file` through the dialect under test, with a table `t (id, v)`; `tries` counts the
 * statements handed to SQLite (runNow's and Kysely's alike).
 */
async function openDialect(file: string) {
	const database = new Database(file);
	database.pragma("journal_mode = WAL");
	database.pragma("busy_timeout = 10");
	database.exec("create table if not exists t (id text primary key, v text)");
	const cached = withStatementCache(database);
	const counted = {
		tries: 0,
		close: () => cached.close(),
		prepare: (sql: string) => {
			counted.tries++;
			return cached.prepare(sql);
		},
	};
	const dialect = new BusyRetryDialect(counted, { giveUpMs: 5000, counters: { storeBusyRetry: () => {} } });
	const db = new Kysely<{ t: { id: string; v: string } }>({ dialect });
	cleanups.push(() => db.destroy());
	return { db, dialect, counted };
}

/** The SQLite store on a new file, holding Session `s1` (no title, no lock). */
async function storeWithSession() {
	const file = tempFile();
	const store = await openSqliteStore(file);
	cleanups.push(() => store.close());
	await store.putSession({
		id: "s1",
		agentId: "a",
		model: "m",
		workspaceDir: "/w",
		title: null,
		createdAt: 1,
		updatedAt: 1,
		lockCredential: null,
	});
	return { file, store };
}

const insert = (id: string) => CompiledQuery.raw("insert into t (id, v) values (?, ?)", [id, "x"]);

describe("statements run at once, past Kysely's executor (runNow)", () => {
	it("a Session's row is written by the time updateSession returns, before anything is awaited", async () => {
		const { file, store } = await storeWithSession();
		const written = store.updateSession("s1", { title: "first prompt" });
		const reader = new Database(file, { readonly: true });
		try {
			expect(reader.prepare("select title from sessions where id = ?").get("s1")).toEqual({ title: "first prompt" });
		} finally {
			reader.close();
		}
		await written;
	});

	it("never runs inside a query of Kysely's that holds the connection (a transaction): it declines, and Kysely's turn comes after", async () => {
		const { db, dialect } = await openDialect(tempFile());
		await expect(
			db.transaction().execute(async (trx) => {
				await trx.executeQuery(insert("in-transaction"));
				expect(dialect.runNow(insert("asked-meanwhile"))).toBeUndefined();
				throw new Error("roll back");
			}),
		).rejects.toThrow("roll back");
		// Had it run on the held connection, the rollback would have taken it too; it ran nowhere.
		const { rows } = await db.executeQuery<{ id: string }>(CompiledQuery.raw("select id from t order by id"));
		expect(rows).toEqual([]);
		expect(dialect.runNow(insert("after"))).toMatchObject({ numAffectedRows: 1n });
	});

	it("declines while another process holds the database's lock, and the statement, then run by Kysely, is written once the lock goes", async () => {
		const file = tempFile();
		const { db, dialect } = await openDialect(file);
		const lock = await lockHolder(file, (cleanup) => cleanups.push(cleanup));
		expect(dialect.runNow(insert("locked"))).toBeUndefined();
		const written = db.executeQuery(insert("locked"));
		await lock.release();
		await written;
		const { rows } = await db.executeQuery<{ id: string }>(CompiledQuery.raw("select id from t"));
		expect(rows).toEqual([{ id: "locked" }]);
	});

	it("keeps the store's statements in the order they were asked when one had to go through Kysely: a lock set then cleared ends cleared", async () => {
		const { file, store } = await storeWithSession();
		const other = new Database(file);
		cleanups.push(() => {
			other.close();
		});
		other.exec("BEGIN IMMEDIATE");
		// Declined (the database is locked): it goes through Kysely, which runs it a few ticks later.
		const set = store.updateSession("s1", { lockCredential: "KEY" });
		other.exec("COMMIT");
		// Asked after it, with the lock gone: it must not overtake it.
		const cleared = store.updateSession("s1", { lockCredential: null });
		await Promise.all([set, cleared]);
		expect((await store.getSession("s1"))?.lockCredential).toBeNull();
	});

	it("once another process's lock stopped one, declines at once — no second wait with the loop stopped — until a statement has gone through Kysely", async () => {
		const file = tempFile();
		const { db, dialect, counted } = await openDialect(file);
		const lock = await lockHolder(file, (cleanup) => cleanups.push(cleanup));
		expect(dialect.runNow(insert("a"))).toBeUndefined();
		const tried = counted.tries;
		expect(dialect.runNow(insert("b"))).toBeUndefined();
		expect(counted.tries).toBe(tried);
		const written = db.executeQuery(insert("a"));
		await lock.release();
		await written;
		expect(dialect.runNow(insert("c"))).toMatchObject({ numAffectedRows: 1n });
	});
});

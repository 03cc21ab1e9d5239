import {
	DummyDriver,
	Kysely,
	PostgresAdapter,
	PostgresIntrospector,
	PostgresQueryCompiler,
	SqliteAdapter,
	SqliteIntrospector,
	SqliteQueryCompiler,
} from "kysely";
import { describe, expect, it } from "vitest";
import { KyselyStore } from "./kysely-store.js";
import { migrationProvider } from "./migrations.js";
import type { Database } from "./schema.js";

/** A Kysely that compiles for a dialect and runs nothing, recording the SQL it would send. */
function compiling(dialect: "postgres" | "sqlite"): { db: Kysely<Database>; sql: string[] } {
	const sql: string[] = [];
	const db = new Kysely<Database>({
		dialect: {
			createAdapter: () => (dialect === "postgres" ? new PostgresAdapter() : new SqliteAdapter()),
			createDriver: () => new DummyDriver(),
			createIntrospector: (k) => (dialect === "postgres" ? new PostgresIntrospector(k) : new SqliteIntrospector(k)),
			createQueryCompiler: () => (dialect === "postgres" ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
		},
		log: (event) => {
			sql.push(event.query.sql);
		},
	});
	return { db, sql };
}

async function everything(db: Kysely<Database>): Promise<void> {
	for (const migration of Object.values(await migrationProvider.getMigrations())) await migration.up(db);
	const store = new KyselyStore(db);
	await store.addUsage({
		sessionId: "s",
		seq: 1,
		agentId: "a",
		model: "m",
		ts: 0,
		input: 1,
		output: 1,
		cacheRead: 0,
		cacheWrite: 0,
		reasoning: 0,
		total: 2,
	});
	await store.usageSums({ from: 0, to: 1 }, "day");
	await store.decideConfirmation("c", "allow", 1);
	await store.setCredential("K", "v", 1);
	await store.putSession({
		id: "s",
		agentId: "a",
		model: "m",
		workspaceDir: "/",
		title: null,
		createdAt: 0,
		updatedAt: 0,
		lockCredential: null,
	});
}

describe("one schema, two dialects", () => {
	it("the migrations and the store's queries compile for Postgres as for SQLite, with no dialect-only SQL", async () => {
		for (const dialect of ["postgres", "sqlite"] as const) {
			const { db, sql } = compiling(dialect);
			await everything(db);
			const text = sql.join("\n").toLowerCase();
			expect(text).toContain('create table "usage_rows"');
			expect(text).toContain("on conflict");
			for (const dialectOnly of [
				"autoincrement",
				"serial",
				"strftime",
				"to_char",
				"pragma",
				"without rowid",
				"jsonb",
			]) {
				expect(text, `${dialect}: ${dialectOnly}`).not.toContain(dialectOnly);
			}
		}
	});
});

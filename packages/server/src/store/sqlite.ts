import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { PRIVATE_DIR_MODE } from "@omniloop/core/internal";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator } from "kysely";
import { type BusyPolicy, BusyRetryDialect } from "./busy-retry.js";
import { KyselyStore } from "./kysely-store.js";
import { migrationProvider } from "./migrations.js";
import type { Database } from "./schema.js";
import { withStatementCache } from "./statement-cache.js";
import type { Store } from "./store.js";

export class StoreMigrationError extends Error {
	override readonly name = "StoreMigrationError";
}

/** A lock another process holds is waited for asynchronously (busy-retry.ts), 5 s by default. */
const DEFAULT_BUSY: BusyPolicy = { giveUpMs: 5000, counters: { storeBusyRetry: () => {} } };

/**
 * Opens (and migrates) the SQLite store at `file`. The file holds credentials, so it is made
 * 0600 before anything is written to it; WAL keeps a reader from blocking the writer.
 */
export async function openSqliteStore(file: string, busy: BusyPolicy = DEFAULT_BUSY): Promise<Store> {
	mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
	if (!existsSync(file)) closeSync(openSync(file, "a", 0o600));
	chmodSync(file, 0o600);
	const database = new BetterSqlite3(file);
	database.pragma("journal_mode = WAL");
	// In WAL mode NORMAL keeps every commit across a process crash (kill -9) and skips the fsync per
	// commit that FULL costs — better-sqlite3 is synchronous, so that fsync would stall the event loop.
	database.pragma("synchronous = NORMAL");
	// The wait for another process's lock stops the event loop: a few ms here, the rest asynchronously.
	database.pragma("busy_timeout = 10");
	for (const side of [`${file}-wal`, `${file}-shm`]) if (existsSync(side)) chmodSync(side, 0o600);
	const dialect = new BusyRetryDialect(withStatementCache(database), busy);
	const db = new Kysely<Database>({ dialect });
	const { error, results } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
	if (error !== undefined) {
		await db.destroy();
		const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "?";
		throw new StoreMigrationError(`${file}: migration ${failed} failed: ${(error as Error).message}`);
	}
	return new KyselyStore(db, undefined, (query) => dialect.runNow(query));
}

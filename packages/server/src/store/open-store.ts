import { resolve } from "node:path";
import type { BusyPolicy } from "./busy-retry.js";
import { isPostgresUrl, openPostgresStore, type PostgresStore } from "./postgres.js";
import { openSqliteStore } from "./sqlite.js";
import type { Store } from "./store.js";

export interface OpenedStore {
	store: Store;
	/** Set when the store is on Postgres: several server processes may share it. */
	postgres: PostgresStore | undefined;
}

/** `--database`: a `postgres://` URL, or a SQLite file (the embedded default; `busy`: how it waits for another process's lock). */
export async function openStore(database: string, busy?: BusyPolicy): Promise<OpenedStore> {
	if (isPostgresUrl(database)) {
		const postgres = await openPostgresStore(database);
		return { store: postgres.store, postgres };
	}
	return { store: await openSqliteStore(resolve(database), busy), postgres: undefined };
}

import { Kysely, type MigrationProvider, Migrator, PostgresDialect } from "kysely";
import pg from "pg";
import { KyselyStore } from "./kysely-store.js";
import { migrationProvider } from "./migrations.js";
import { clusterMigrationProvider } from "./postgres-migrations.js";
import type { ClusterDatabase } from "./postgres-schema.js";
import { StoreMigrationError } from "./sqlite.js";
import type { Store } from "./store.js";

/** int8, numeric: pg hands them out as strings (they may not fit a double); ours are ms and token counts. */
const INT8 = 20;
const NUMERIC = 1700;

/** One key for every omniloop process on a database: migrations run under it, one process at a time. */
const MIGRATION_LOCK = 7_317_001;

export function isPostgresUrl(database: string): boolean {
	return /^postgres(ql)?:\/\//.test(database);
}

/** The pool's connection options: numbers come back as numbers, on this pool only (not pg's global parsers). */
export function poolConfig(url: string, max = 10): pg.PoolConfig {
	return {
		connectionString: url,
		max,
		types: {
			getTypeParser: ((oid: number, format?: "text" | "binary") =>
				oid === INT8 || oid === NUMERIC
					? Number
					: pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
		},
	};
}

export interface PostgresStore {
	store: Store;
	/** The same pool and schema, plus the cluster's tables (leases, the event log). */
	db: Kysely<ClusterDatabase>;
	pool: pg.Pool;
	url: string;
}

/**
 * Opens (and migrates) the store on Postgres: the SQLite store's schema and migrations, then the
 * cluster's own (their own migration table, so neither history blocks the other). Several
 * processes may start at once: a session-level advisory lock lets one migrate while the others
 * wait, then find nothing left to do.
 */
export async function openPostgresStore(url: string): Promise<PostgresStore> {
	const pool = new pg.Pool(poolConfig(url));
	// An idle client that errors (the server restarted) must not crash the process: the pool drops it.
	pool.on("error", () => {});
	const db = new Kysely<ClusterDatabase>({ dialect: new PostgresDialect({ pool }) });
	try {
		await migrate(pool, db);
	} catch (error) {
		await db.destroy();
		throw error;
	}
	return { store: new KyselyStore(db), db, pool, url };
}

async function migrate(pool: pg.Pool, db: Kysely<ClusterDatabase>): Promise<void> {
	const lock = await pool.connect();
	try {
		await lock.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
		await run(db, migrationProvider, "kysely_migration");
		await run(db, clusterMigrationProvider, "omniloop_cluster_migration");
	} finally {
		await lock.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
		lock.release();
	}
}

async function run(db: Kysely<ClusterDatabase>, provider: MigrationProvider, table: string): Promise<void> {
	const migrator = new Migrator({
		db,
		provider,
		migrationTableName: table,
		migrationLockTableName: `${table}_lock`,
	});
	const { error, results } = await migrator.migrateToLatest();
	if (error === undefined) return;
	const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "?";
	throw new StoreMigrationError(`postgres: migration ${failed} failed: ${(error as Error).message}`);
}

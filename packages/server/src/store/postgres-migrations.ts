import { type Kysely, type Migration, type MigrationProvider, sql } from "kysely";

/**
 * The cluster's tables, Postgres only, in their own migration history (`omniloop_cluster_migration`):
 * the shared migrations stay one list for both dialects, and neither history blocks the other.
 */
const migrations: Record<string, Migration> = {
	"001_leases_and_events": {
		async up(db: Kysely<unknown>) {
			await db.schema
				.createTable("session_leases")
				.addColumn("session_id", "text", (c) => c.primaryKey())
				.addColumn("owner", "text", (c) => c.notNull())
				.addColumn("expires_at", "bigint", (c) => c.notNull())
				.execute();
			await db.schema
				.createTable("session_events")
				.addColumn("session_id", "text", (c) => c.notNull())
				.addColumn("seq", "bigint", (c) => c.notNull())
				.addColumn("partial", "boolean", (c) => c.notNull())
				.addColumn("body", "text", (c) => c.notNull())
				.addPrimaryKeyConstraint("session_events_pk", ["session_id", "seq"])
				.execute();
		},
	},
	"002_trace_chunks": {
		async up(db: Kysely<unknown>) {
			// A Session's Trace files, as appended byte ranges: a process with another home resumes from them.
			await db.schema
				.createTable("trace_chunks")
				.addColumn("session_id", "text", (c) => c.notNull())
				.addColumn("name", "text", (c) => c.notNull())
				.addColumn("offset", "bigint", (c) => c.notNull())
				.addColumn("bytes", "bytea", (c) => c.notNull())
				.addPrimaryKeyConstraint("trace_chunks_pk", ["session_id", "name", "offset"])
				.execute();
		},
	},
	"003_fencing": {
		async up(db: Kysely<unknown>) {
			// Fencing tokens (docs/cluster.md): every claim of a lease takes a new epoch from one
			// sequence, and a lease row outlives its release, so an epoch is never given twice.
			await sql`create sequence lease_epochs`.execute(db);
			await sql`alter table session_leases add column epoch bigint not null default 0`.execute(db);
			// The highest seq the Session's event log ever held, kept at each claim: dropped partials do not lower it.
			await sql`alter table session_leases add column seq_floor bigint not null default 0`.execute(db);
			await sql`alter table session_events add column epoch bigint not null default 0`.execute(db);
			await sql`alter table trace_chunks add column epoch bigint not null default 0`.execute(db);
		},
	},
	"004_session_actions": {
		async up(db: Kysely<unknown>) {
			// Steer and abort posted on a process that does not run the Task (docs/cluster.md): the
			// record, which the holder — or whoever takes the Task over — carries out once.
			await sql`create table session_actions (
				id bigserial primary key,
				session_id text not null,
				epoch bigint not null,
				kind text not null,
				text text,
				created_at bigint not null,
				done_at bigint,
				outcome text
			)`.execute(db);
			await sql`create index session_actions_open on session_actions (session_id) where done_at is null`.execute(db);
		},
	},
};

export const clusterMigrationProvider: MigrationProvider = {
	getMigrations: async () => migrations,
};

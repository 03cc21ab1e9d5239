import { type Kysely, type Migration, type MigrationProvider, sql } from "kysely";
import { workflowsBySessionMigration, workflowsMigration } from "../workflows/workflow-tables.js";

/**
 * The schema's history. Only portable column types and constraints, so the same list migrates
 * SQLite now and Postgres later. Migrations take `Kysely<unknown>`: they must not depend on the
 * current TypeScript schema, which moves on after they are written.
 */
const migrations: Record<string, Migration> = {
	"001_initial": {
		async up(db: Kysely<unknown>) {
			await db.schema
				.createTable("sessions")
				.addColumn("id", "text", (c) => c.primaryKey())
				.addColumn("agent_id", "text", (c) => c.notNull())
				.addColumn("model", "text", (c) => c.notNull())
				.addColumn("workspace_dir", "text", (c) => c.notNull())
				.addColumn("title", "text")
				.addColumn("created_at", "bigint", (c) => c.notNull())
				.addColumn("updated_at", "bigint", (c) => c.notNull())
				.addColumn("lock_credential", "text")
				.execute();
			// No foreign key to sessions: usage is billing history and outlives its Session.
			await db.schema
				.createTable("usage_rows")
				.addColumn("session_id", "text", (c) => c.notNull())
				.addColumn("seq", "bigint", (c) => c.notNull())
				.addColumn("agent_id", "text", (c) => c.notNull())
				.addColumn("model", "text", (c) => c.notNull())
				.addColumn("ts", "bigint", (c) => c.notNull())
				.addColumn("day", "text", (c) => c.notNull())
				.addColumn("input", "bigint", (c) => c.notNull())
				.addColumn("output", "bigint", (c) => c.notNull())
				.addColumn("cache_read", "bigint", (c) => c.notNull())
				.addColumn("cache_write", "bigint", (c) => c.notNull())
				.addColumn("reasoning", "bigint", (c) => c.notNull())
				.addColumn("total", "bigint", (c) => c.notNull())
				.addPrimaryKeyConstraint("usage_rows_pk", ["session_id", "seq"])
				.execute();
			await db.schema.createIndex("usage_rows_ts").on("usage_rows").column("ts").execute();
			await db.schema
				.createTable("confirmations")
				.addColumn("correlation_id", "text", (c) => c.primaryKey())
				.addColumn("session_id", "text", (c) => c.notNull())
				.addColumn("call_id", "text", (c) => c.notNull())
				.addColumn("name", "text", (c) => c.notNull())
				.addColumn("arguments", "text", (c) => c.notNull())
				.addColumn("requested_at", "bigint", (c) => c.notNull())
				.addColumn("decision", "text")
				.addColumn("decided_at", "bigint")
				.addColumn("position", "bigint", (c) => c.notNull().defaultTo(sql`0`))
				.execute();
			await db.schema
				.createIndex("confirmations_session")
				.on("confirmations")
				.columns(["session_id", "decision"])
				.execute();
			await db.schema
				.createTable("credentials")
				.addColumn("name", "text", (c) => c.primaryKey())
				.addColumn("value", "text", (c) => c.notNull())
				.addColumn("updated_at", "bigint", (c) => c.notNull())
				.execute();
		},
	},
	"002_workflows": workflowsMigration,
	"003_workflows_by_session": workflowsBySessionMigration,
};

export const migrationProvider: MigrationProvider = {
	getMigrations: async () => migrations,
};

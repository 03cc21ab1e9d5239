import pg from "pg";
import { onCleanup } from "../harness.js";

/**
 * Who wrote what, and when, in the database the servers share: each server process connects as a
 * role of its own (`jepsen_a`, …), and a trigger on every table a process writes for a Session or a
 * workflow records the role, the database clock and the row's key. So "no write after lease loss"
 * is checked on every table, those without an epoch column too, without trusting the servers' logs.
 */
export const ROLES = ["jepsen_a", "jepsen_b", "jepsen_c"] as const;

/** The tables and the column naming the lease key of a row (a workflow's key is `workflow:<id>`). */
const AUDITED: [table: string, column: string, prefix: string][] = [
	["session_events", "session_id", ""],
	["trace_chunks", "session_id", ""],
	["usage_rows", "session_id", ""],
	["confirmations", "session_id", ""],
	["sessions", "id", ""],
	["session_leases", "session_id", ""],
	["workflows", "id", "workflow:"],
	["workflow_approvals", "workflow_id", "workflow:"],
];

export interface AuditRow {
	tbl: string;
	op: string;
	who: string;
	/** Database time, ms. */
	at: number;
	key: string;
	epoch: number | null;
	detail: string;
}

/** The URL of `database` as the role `role` (created, superuser, if it does not exist). */
export async function roleUrls(database: string): Promise<string[]> {
	const db = new pg.Client({ connectionString: database });
	await db.connect();
	try {
		for (const role of ROLES) {
			const exists = await db.query("select 1 from pg_roles where rolname = $1", [role]);
			if (exists.rowCount === 0) await db.query(`create role ${role} superuser login`);
		}
	} finally {
		await db.end();
	}
	return ROLES.map((role) => {
		const url = new URL(database);
		url.username = role;
		return url.href;
	});
}

/** The audit connection: installs the triggers (the tables exist once a server migrated) and reads them. */
export async function openAudit(database: string) {
	const db = new pg.Client({ connectionString: database });
	await db.connect();
	onCleanup(() => db.end());
	await db.query(`create table jepsen_audit (id bigserial primary key, tbl text, op text, who text,
		at double precision, key text, epoch bigint, detail text)`);
	// A lease row's renewals are not claims: only a new epoch (or a new row) is recorded.
	await db.query(`create function jepsen_audit() returns trigger language plpgsql as $$
		declare r jsonb;
		begin
			if tg_op = 'DELETE' then r := to_jsonb(old); else r := to_jsonb(new); end if;
			if tg_table_name = 'session_leases' and tg_op = 'UPDATE' and (to_jsonb(old)->>'epoch') = (r->>'epoch') then
				return null;
			end if;
			insert into jepsen_audit (tbl, op, who, at, key, epoch, detail) values (tg_table_name, tg_op, session_user,
				extract(epoch from clock_timestamp()) * 1000, tg_argv[1] || (r->>tg_argv[0]), (r->>'epoch')::bigint,
				left((r - 'bytes')::text, 400));
			return null;
		end $$`);
	for (const [table, column, prefix] of AUDITED)
		await db.query(`create trigger jepsen_audit after insert or update or delete on ${table}
			for each row execute function jepsen_audit('${column}', '${prefix}')`);
	return {
		db,
		/** The database's clock now, ms (the audit rows' clock). */
		async now(): Promise<number> {
			return Number(
				(await db.query<{ t: number }>("select extract(epoch from clock_timestamp()) * 1000 as t")).rows[0]?.t,
			);
		},
		/** The role whose claim of `key` is the latest (the process holding it, or that held it last). */
		async holder(key: string): Promise<string | undefined> {
			const r = await db.query<{ who: string }>(
				"select who from jepsen_audit where tbl = 'session_leases' and key = $1 order by id desc limit 1",
				[key],
			);
			return r.rows[0]?.who;
		},
		/**
		 * The writes `role` made after `since` to the rows of a key another process had claimed
		 * since `role`'s own last claim of it: a process that lost a lease writes nothing more for it.
		 */
		async writesAfterLoss(role: string, since: number): Promise<AuditRow[]> {
			const r = await db.query<AuditRow>(
				`select w.tbl, w.op, w.who, w.at, w.key, w.epoch, w.detail from jepsen_audit w
				where w.who = $1 and w.at > $2 and w.tbl <> 'session_leases'
				and exists (select 1 from jepsen_audit c where c.tbl = 'session_leases' and c.key = w.key and c.who <> $1
					and c.id < w.id
					and not exists (select 1 from jepsen_audit m where m.tbl = 'session_leases' and m.key = w.key
						and m.who = $1 and m.id > c.id and m.id < w.id))
				order by w.id`,
				[role, since],
			);
			return r.rows;
		},
	};
}

export type Audit = Awaited<ReturnType<typeof openAudit>>;

import pg from "pg";

let locks = 7020;

/**
 * A fault point in the database: from here the inserts into `table` whose row matches `when` (a
 * condition on `new`) wait, their transaction blocked on a lock the test holds, until `release`
 * — which first ends every transaction still waiting (as the death of its process would), so
 * nothing they held back is written.
 */
export async function stallInserts(database: string, table: string, when: string) {
	const lock = locks++;
	const name = `stall_${table}_${lock}`;
	const client = new pg.Client({ connectionString: database });
	await client.connect();
	await client.query(`create function ${name}() returns trigger language plpgsql as $$
		begin
			if ${when} then perform pg_advisory_xact_lock_shared(${lock}); end if;
			return new;
		end $$`);
	await client.query("select pg_advisory_lock($1)", [lock]);
	await client.query(`create trigger ${name} before insert on ${table} for each row execute function ${name}()`);
	return {
		async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
			return (await client.query<R>(text, values)).rows;
		},
		/** Does a connection of `application` wait on the lock (or any other) now? */
		async waiting(application: string): Promise<boolean> {
			const { rows } = await client.query(
				"select 1 from pg_stat_activity where datname = current_database() and application_name = $1 and wait_event_type = 'Lock'",
				[application],
			);
			return rows.length > 0;
		},
		/** `endWaiting: false`: the waiting inserts go on (a stall, not a death). */
		async release({ endWaiting = true }: { endWaiting?: boolean } = {}): Promise<void> {
			await client.query(`drop trigger ${name} on ${table}`);
			if (endWaiting) {
				await client.query(
					`select pg_terminate_backend(pid) from pg_stat_activity
					where pid <> pg_backend_pid() and datname = current_database() and wait_event_type = 'Lock'`,
				);
			}
			await client.query("select pg_advisory_unlock($1)", [lock]);
			await client.end();
		},
	};
}

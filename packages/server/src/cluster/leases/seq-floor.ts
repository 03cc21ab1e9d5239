import type pg from "pg";
import { LeaseLostError } from "./leases.js";

/**
 * Under a claim just made: the Session's floor — above every seq its event log ever held —
 * raised to what it holds now and kept in the lease row, fenced. The claim committed first, so
 * every row of an earlier epoch is in (its insert held the lease row `for key share`) or refused
 * (docs/cluster.md, seq).
 */
export async function raiseFloor(pool: pg.Pool, sessionId: string, epoch: number): Promise<number> {
	const result = await pool.query<{ seq_floor: number }>(
		`update session_leases set seq_floor = greatest(seq_floor,
			coalesce((select max(seq) from session_events where session_id = $1), 0))
		where session_id = $1 and epoch = $2 returning seq_floor`,
		[sessionId, epoch],
	);
	const row = result.rows[0];
	if (row === undefined) throw new LeaseLostError(sessionId);
	return row.seq_floor;
}

/** The Session's floor as the database has it now (a read: nothing runs here yet). */
export async function currentFloor(pool: pg.Pool, sessionId: string): Promise<number> {
	const result = await pool.query<{ floor: number }>(
		`select greatest(coalesce((select seq_floor from session_leases where session_id = $1), 0),
			coalesce((select max(seq) from session_events where session_id = $1), 0)) as floor`,
		[sessionId],
	);
	return result.rows[0]?.floor ?? 0;
}

import type pg from "pg";
import type { UsageRow } from "../../store/store.js";
import { LeaseLostError } from "./leases.js";

/**
 * A usage row written only while the lease of `epoch` stands on its Session, in the same
 * statement (docs/cluster.md). Its seq is unique: a conflict is only this row written before.
 */
export async function addFencedUsage(pool: pg.Pool, row: UsageRow, epoch: number): Promise<void> {
	const result = await pool.query(
		`insert into usage_rows (session_id, seq, agent_id, model, ts, day, input, output, cache_read, cache_write, reasoning, total)
		select $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12
		where exists (select 1 from session_leases where session_id = $1 and epoch = $13 for key share)
		on conflict (session_id, seq) do nothing`,
		[
			row.sessionId,
			row.seq,
			row.agentId,
			row.model,
			row.ts,
			new Date(row.ts).toISOString().slice(0, 10),
			row.input,
			row.output,
			row.cacheRead,
			row.cacheWrite,
			row.reasoning,
			row.total,
			epoch,
		],
	);
	if (result.rowCount === 0 && !(await usageStored(pool, row))) throw new LeaseLostError(row.sessionId);
}

/** Is the Session's usage row at the row's seq in (written with its `token_usage` row, or before)? */
export async function usageStored(pool: pg.Pool, row: UsageRow): Promise<boolean> {
	const result = await pool.query("select 1 from usage_rows where session_id = $1 and seq = $2", [
		row.sessionId,
		row.seq,
	]);
	return (result.rowCount ?? 0) > 0;
}

import { isPartialMessage, type OmniMessage } from "@omniloop/core";
import type pg from "pg";

/** The channel every process LISTENs on; a notification carries only `<sessionId>` (rows carry the data). */
export const EVENTS_CHANNEL = "omniloop_events";

interface Pending {
	rows: OmniMessage[];
	timer: NodeJS.Timeout | undefined;
	/** The flush in progress: batches of one Session commit in seq order, one after the other. */
	writing: Promise<void>;
}

/**
 * Writes what the Sessions running in this process emit into `session_events`, batched: one
 * INSERT (and one NOTIFY, sent when it commits) per Session per `batchMs`, not one per token. The
 * notification follows the commit, so a process that reads after it sees every row before it.
 */
export class EventLogWriter {
	private readonly pending = new Map<string, Pending>();

	constructor(
		private readonly pool: pg.Pool,
		private readonly batchMs: number,
		private readonly report: (error: unknown) => void,
	) {}

	append(sessionId: string, message: OmniMessage): void {
		let entry = this.pending.get(sessionId);
		if (entry === undefined) {
			entry = { rows: [], timer: undefined, writing: Promise.resolve() };
			this.pending.set(sessionId, entry);
		}
		entry.rows.push(message);
		// Complete messages are rarer and matter more (done ends a stream): they need not wait a whole batch.
		entry.timer ??= setTimeout(() => this.flush(sessionId), isPartialMessage(message) ? this.batchMs : 1);
	}

	/** Writes what is buffered for the Session and resolves once every batch so far is committed. */
	drain(sessionId: string): Promise<void> {
		this.flush(sessionId);
		return this.pending.get(sessionId)?.writing ?? Promise.resolve();
	}

	/** Drops a finished Task's partials (a viewer joining later replays the complete messages). */
	async dropPartials(sessionId: string): Promise<void> {
		await this.pool.query("delete from session_events where session_id = $1 and partial", [sessionId]);
	}

	async deleteSession(sessionId: string): Promise<void> {
		await this.drain(sessionId);
		this.pending.delete(sessionId);
		await this.pool.query("delete from session_events where session_id = $1", [sessionId]);
	}

	private flush(sessionId: string): void {
		const entry = this.pending.get(sessionId);
		if (entry === undefined) return;
		if (entry.timer !== undefined) clearTimeout(entry.timer);
		entry.timer = undefined;
		if (entry.rows.length === 0) return;
		const rows = entry.rows;
		entry.rows = [];
		entry.writing = entry.writing.then(() => this.write(sessionId, rows)).catch((error: unknown) => this.report(error));
	}

	private async write(sessionId: string, rows: OmniMessage[]): Promise<void> {
		// unnest: one statement for the whole batch; the CTE's pg_notify is sent when the INSERT commits.
		await this.pool.query(
			`with inserted as (
				insert into session_events (session_id, seq, partial, body)
				select $1, seq, partial, body from unnest($2::int8[], $3::bool[], $4::text[]) as t(seq, partial, body)
				on conflict do nothing
				returning seq
			)
			select pg_notify('${EVENTS_CHANNEL}', $1) from (select 1 from inserted limit 1) as any_row`,
			[sessionId, rows.map((m) => m.seq), rows.map((m) => isPartialMessage(m)), rows.map((m) => JSON.stringify(m))],
		);
	}
}

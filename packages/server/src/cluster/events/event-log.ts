import { isPartialMessage, type OmniMessage } from "@omniloop/core";
import pg from "pg";
import { poolConfig } from "../../store/postgres.js";
import type { UsageRow } from "../../store/store.js";
import type { BegunFile } from "../trace/trace-rebuild.js";

/** The channel every process LISTENs on; a notification carries only `<sessionId>` (rows carry the data). */
export const EVENTS_CHANNEL = "omniloop_events";

/** The `application_name` of the writer's own connection (in `pg_stat_activity`). */
export const EVENT_WRITER_APPLICATION = "omniloop-event-writer";

const MAX_RETRIES = 5;
const RETRY_MS = 200;

interface Row {
	sessionId: string;
	message: OmniMessage;
	/** The lease's epoch the row is written under (the database refuses it once another claim took the Session). */
	epoch: number;
	/** Called once the row is committed: a reader here sees nothing that is not durable. */
	durable: () => void;
	/** A `token_usage` message's usage row: written in the same statement as the message's row. */
	usage: UsageRow | undefined;
	/** An ok `compaction_end`'s new Trace file: its header goes to `trace_chunks` in the row's transaction. */
	begun: BegunFile | undefined;
}

/** A `drain` caller: it goes on once the first `rows` rows taken for the Session have left the writer. */
interface Waiter {
	sessionId: string;
	rows: number;
	resolve: () => void;
}

/**
 * Writes what the Sessions running in this process emit into `session_events`, batched: one
 * INSERT for all of them and one NOTIFY per Session in it (sent when it commits), not one per
 * token. Partials wait until the oldest of them is `batchMs` old, so a fast stream makes one
 * INSERT per `batchMs`, not one per round trip; a complete message (a tool about to start, the
 * end of a Task) or a `drain` sends what is buffered at once. A notification follows the commit,
 * so a process that reads after it sees every row before it. One write at a time, so a Session's
 * batches commit in seq order; rows that come meanwhile go together in the next (a slow database
 * gets bigger batches, not a queue).
 *
 * The writes go through a connection of their own, with the server's `synchronous_commit` (on by
 * default): a row is durable once its commit returns, and only then does a reader here get it or
 * a notification go out. With it off, a crash of Postgres could lose rows a viewer already saw
 * (a later claim would hand their seqs out again) and usage rows written with them. Batching
 * (one commit per `batchMs` for every Session) keeps that to one WAL flush per batch.
 */
export class EventLogWriter {
	private buffered: Row[] = [];
	private timer: NodeJS.Timeout | undefined;
	/** When `timer` fires (performance.now()). */
	private dueAt = 0;
	/** When the oldest buffered row came. */
	private oldestAt = 0;
	/** A buffered row must not wait for the batch: a complete message, a drain, a retry. */
	private urgent = false;
	/** A failed write's backoff: nothing is written before. */
	private notBefore = 0;
	private writing = false;
	/**
	 * Rows taken per Session, and how many of them have left the writer (committed, refused, or
	 * given up on), for `drain`. Counted, not compared by seq: a refusal drops the Session's rows
	 * still buffered behind the refused batch, which no write ever reports on, and a Session's rows
	 * leave in the order they came.
	 */
	private readonly taken = new Map<string, number>();
	private readonly settled = new Map<string, number>();
	/** The last seq actually committed per Session (refused and given-up rows excluded). */
	private readonly durableSeqs = new Map<string, number>();
	private waiters: Waiter[] = [];
	private connection: Promise<pg.Client> | undefined;
	/** Writes failed in a row. */
	private failures = 0;
	/** The epoch under which each Session's rows were refused (or given up on): nothing more of it is written. */
	private readonly refused = new Map<string, number>();
	/** The database refused the Session's rows (another process claimed it since), or they could not be written. */
	onRefused: (sessionId: string, epoch: number) => void = () => {};

	constructor(
		private readonly pool: pg.Pool,
		private readonly url: string,
		private readonly batchMs: number,
		private readonly report: (error: unknown) => void,
	) {}

	append(
		sessionId: string,
		message: OmniMessage,
		epoch: number,
		durable: () => void,
		extra: { usage?: UsageRow; begun?: BegunFile } = {},
	): void {
		if (this.refused.get(sessionId) === epoch) return;
		if (this.buffered.length === 0) this.oldestAt = performance.now();
		this.buffered.push({ sessionId, message, epoch, durable, usage: extra.usage, begun: extra.begun });
		this.taken.set(sessionId, (this.taken.get(sessionId) ?? 0) + 1);
		// Complete messages are rarer and matter more (done ends a stream): they need not wait a whole batch.
		if (!isPartialMessage(message)) this.urgent = true;
		this.schedule();
	}

	/**
	 * Sets the timer for what is buffered: a batch after the oldest row came, or at once (1 ms,
	 * so what the same tick emits goes together) when a row is urgent; never before a backoff ends.
	 */
	private schedule(): void {
		if (this.writing || this.buffered.length === 0) return;
		const now = performance.now();
		const due = Math.max(this.urgent ? now + 1 : this.oldestAt + this.batchMs, this.notBefore);
		if (this.timer !== undefined && this.dueAt <= due) return;
		clearTimeout(this.timer);
		this.dueAt = due;
		this.timer = setTimeout(() => this.flush(), Math.max(0, due - now));
	}

	/**
	 * The last seq of the Session this process committed (0 before any): rows the database refused
	 * or that were given up on are not counted (another process may have written those seqs since).
	 */
	committedSeq(sessionId: string): number {
		return this.durableSeqs.get(sessionId) ?? 0;
	}

	/** Were the Session's rows under `epoch` refused or given up on (a tool must not start then)? */
	wasRefused(sessionId: string, epoch: number): boolean {
		return this.refused.get(sessionId) === epoch;
	}

	/** Resolves once everything buffered for the Session so far is committed (or refused, or given up on). */
	drain(sessionId: string): Promise<void> {
		const rows = this.taken.get(sessionId) ?? 0;
		if ((this.settled.get(sessionId) ?? 0) >= rows) return Promise.resolve();
		const done = new Promise<void>((resolve) => this.waiters.push({ sessionId, rows, resolve }));
		this.urgent = true;
		if (performance.now() >= this.notBefore) this.flush();
		else this.schedule();
		return done;
	}

	/**
	 * Drops a finished Task's partials, up to `upTo` and written under `epoch` or before: a later
	 * Task's, maybe on another process that claimed the Session since (a higher epoch), stay. A
	 * viewer joining later replays the complete messages.
	 */
	async dropPartials(sessionId: string, epoch: number, upTo = Number.MAX_SAFE_INTEGER): Promise<void> {
		await this.pool.query(
			"delete from session_events where session_id = $1 and partial and seq <= $2 and epoch <= $3",
			[sessionId, upTo, epoch],
		);
	}

	async deleteSession(sessionId: string): Promise<void> {
		await this.drain(sessionId);
		this.taken.delete(sessionId);
		this.settled.delete(sessionId);
		this.durableSeqs.delete(sessionId);
		this.refused.delete(sessionId);
		await this.pool.query("delete from session_events where session_id = $1", [sessionId]);
	}

	private flush(): void {
		if (this.timer !== undefined) clearTimeout(this.timer);
		this.timer = undefined;
		if (this.writing || this.buffered.length === 0) return;
		const rows = this.buffered;
		this.buffered = [];
		this.urgent = false;
		this.writing = true;
		this.write(rows).then(
			(written) => {
				this.failures = 0;
				for (const row of rows) {
					if (written.has(`${row.sessionId} ${row.message.seq}`)) {
						this.durableSeqs.set(row.sessionId, Math.max(this.committedSeq(row.sessionId), row.message.seq));
						row.durable();
					} else this.refuse(row);
				}
				this.committed(rows);
				// What came during the write goes when its own batch is due (at once if it is urgent).
				this.schedule();
			},
			(error: unknown) => {
				this.report(error);
				this.writing = false;
				// The connection was lost (Postgres restarted, a failover): the rows go again, in
				// order, on a new one. Past a few tries they are given up, so no Task waits forever.
				if (++this.failures <= MAX_RETRIES) {
					this.buffered = [...rows, ...this.buffered];
					this.urgent = true;
					this.notBefore = performance.now() + RETRY_MS * this.failures;
					this.schedule();
				} else {
					this.failures = 0;
					for (const row of rows) this.refuse(row);
					this.committed(rows);
					this.schedule();
				}
			},
		);
	}

	/** The Session's rows under `row`'s epoch go: the refused one's batch, and those still buffered behind it. */
	private refuse(row: Row): void {
		if (this.refused.get(row.sessionId) === row.epoch) return;
		this.refused.set(row.sessionId, row.epoch);
		const dropped = this.buffered.filter((r) => r.sessionId === row.sessionId && r.epoch === row.epoch);
		if (dropped.length > 0) this.buffered = this.buffered.filter((r) => !dropped.includes(r));
		this.leave(dropped);
		this.onRefused(row.sessionId, row.epoch);
	}

	/** The rows are committed (or given up on): `drain` callers waiting for them go on. */
	private committed(rows: readonly Row[]): void {
		this.writing = false;
		this.leave(rows);
		this.settle();
	}

	/** The rows left the writer, written or not. */
	private leave(rows: readonly Row[]): void {
		for (const { sessionId } of rows) this.settled.set(sessionId, (this.settled.get(sessionId) ?? 0) + 1);
	}

	private settle(): void {
		const waiting: Waiter[] = [];
		for (const waiter of this.waiters) {
			if ((this.settled.get(waiter.sessionId) ?? 0) >= waiter.rows) waiter.resolve();
			else waiting.push(waiter);
		}
		this.waiters = waiting;
	}

	/** The writer's own connection, opened on first use and again after it failed. */
	private client(): Promise<pg.Client> {
		this.connection ??= (async () => {
			const client = new pg.Client({
				...poolConfig(this.url),
				application_name: EVENT_WRITER_APPLICATION,
			});
			client.on("error", (error) => {
				this.report(error);
				this.connection = undefined;
			});
			client.on("end", () => {
				this.connection = undefined;
			});
			await client.connect();
			return client;
		})().catch((error: unknown) => {
			this.connection = undefined;
			throw error;
		});
		return this.connection;
	}

	async close(): Promise<void> {
		const connection = this.connection;
		this.connection = undefined;
		await (await connection?.catch(() => undefined))?.end().catch(() => {});
	}

	/** Writes the batch; answers `<session> <seq>` of each row written. */
	private async write(rows: readonly Row[]): Promise<Set<string>> {
		const client = await this.client();
		const begun = rows.flatMap((r) => (r.begun === undefined ? [] : [{ row: r, file: r.begun }]));
		if (begun.length === 0) return this.insert(client, rows);
		// A compaction's new file begins in the database with the row that says it ended, in one
		// transaction: a taker never finds the row without the file (trace-rebuild.ts). Only such a
		// batch touches trace_chunks, so a stalled Trace upload never holds the event log.
		await client.query("begin");
		try {
			const written = await this.insert(client, rows);
			await client.query(
				`insert into trace_chunks (session_id, name, "offset", bytes, epoch)
				select c.session_id, c.name, 0, convert_to(c.header, 'UTF8'), c.epoch
				from unnest($1::text[], $2::int8[], $3::text[], $4::text[], $5::int8[]) as c(session_id, seq, name, header, epoch)
				join session_events e on e.session_id = c.session_id and e.seq = c.seq and e.epoch = c.epoch
				on conflict do nothing`,
				[
					begun.map((b) => b.row.sessionId),
					begun.map((b) => b.row.message.seq),
					begun.map((b) => b.file.name),
					begun.map((b) => b.file.header),
					begun.map((b) => b.row.epoch),
				],
			);
			await client.query("commit");
			return written;
		} catch (error) {
			await client.query("rollback").catch(() => {});
			throw error;
		}
	}

	/**
	 * One statement for the whole batch, fenced: a row goes in only while its Session's lease
	 * still has the row's epoch, read `for key share` so a claim waits for this commit (and the
	 * claim's floor sees these rows) or this insert sees the claim and writes none of them. A
	 * seq already taken is a conflict only this process's own retry can make (same epoch: the
	 * same row); any other is refused, never merged. A `token_usage` row's usage row goes in with
	 * it, in the same statement: a crash leaves both or neither (usage rows = `token_usage` events).
	 * Answers `<session> <seq>` of each row written.
	 */
	private async insert(client: pg.Client, rows: readonly Row[]): Promise<Set<string>> {
		// each pg_notify is sent when the INSERT commits.
		const result = await client.query<{ session_id: string; seq: number }>(
			`with batch as (
				select * from unnest($1::text[], $2::int8[], $3::bool[], $4::text[], $5::int8[])
					as b(session_id, seq, partial, body, epoch)
			),
			fenced as (
				select b.* from batch b join session_leases l on l.session_id = b.session_id and l.epoch = b.epoch
				for key share of l
			),
			inserted as (
				insert into session_events (session_id, seq, partial, body, epoch)
				select session_id, seq, partial, body, epoch from fenced
				on conflict (session_id, seq) do update set body = excluded.body
					where session_events.epoch = excluded.epoch
				returning session_id, seq
			),
			usage as (
				select * from unnest($6::text[], $7::int8[], $8::text[], $9::text[], $10::int8[], $11::text[],
					$12::int8[], $13::int8[], $14::int8[], $15::int8[], $16::int8[], $17::int8[])
					as u(session_id, seq, agent_id, model, ts, day, input, output, cache_read, cache_write, reasoning, total)
			),
			usage_inserted as (
				insert into usage_rows (session_id, seq, agent_id, model, ts, day, input, output, cache_read, cache_write, reasoning, total)
				select u.* from usage u join inserted i on i.session_id = u.session_id and i.seq = u.seq
				on conflict (session_id, seq) do nothing
			),
			notified as (
				select pg_notify('${EVENTS_CHANNEL}', session_id) from (select distinct session_id from inserted) as s
			)
			select i.session_id, i.seq from inserted i, (select count(*) from notified) as n`,
			[
				rows.map((r) => r.sessionId),
				rows.map((r) => r.message.seq),
				rows.map((r) => isPartialMessage(r.message)),
				rows.map((r) => JSON.stringify(r.message)),
				rows.map((r) => r.epoch),
				...usageColumns(rows.flatMap((r) => (r.usage === undefined ? [] : [r.usage]))),
			],
		);
		return new Set(result.rows.map((r) => `${r.session_id} ${r.seq}`));
	}
}

/** The usage rows as the statement's column arrays, in the order of `usage_rows`' columns. */
function usageColumns(rows: readonly UsageRow[]): unknown[][] {
	return [
		rows.map((r) => r.sessionId),
		rows.map((r) => r.seq),
		rows.map((r) => r.agentId),
		rows.map((r) => r.model),
		rows.map((r) => r.ts),
		rows.map((r) => new Date(r.ts).toISOString().slice(0, 10)),
		rows.map((r) => r.input),
		rows.map((r) => r.output),
		rows.map((r) => r.cacheRead),
		rows.map((r) => r.cacheWrite),
		rows.map((r) => r.reasoning),
		rows.map((r) => r.total),
	];
}

import type { OmniMessage } from "@omniloop/core";
import type pg from "pg";
import { EVENTS_CHANNEL } from "./event-log.js";
import type { Notifications } from "./notifications.js";

/** Where the rows of one Session go in this process, and whether they are wanted right now. */
export interface TailTarget {
	/** A Task of this Session runs here: its messages reach the readers directly, not through the database. */
	readonly runningHere: boolean;
	/** Are there readers to hand rows to? */
	readonly watched: boolean;
	deliver(messages: OmniMessage[]): void;
}

interface Followed {
	target: TailTarget;
	/** The highest seq read from the table for this Session (unknown until its first reader). */
	cursor: number | undefined;
}

/**
 * The other processes' messages, live: one LISTEN connection; a notification names a Session,
 * and its new rows (`seq > cursor`) are read and handed to the readers in this process. Reads
 * run one at a time, in one queue with the backlogs of joining readers, so rows go out in seq
 * order, each once; the Sessions notified meanwhile are read together in the next query (a busy
 * database gets fewer, bigger reads, not a queue of small ones).
 */
export class EventTail {
	private readonly followed = new Map<string, Followed>();
	private readonly dirty = new Set<string>();
	private chain: Promise<void> = Promise.resolve();
	private readQueued = false;

	constructor(
		private readonly pool: pg.Pool,
		private readonly notifications: Notifications,
		private readonly report: (error: unknown) => void,
	) {
		void notifications.listen(EVENTS_CHANNEL, (sessionId) => this.notified(sessionId));
		// Notifications may have been missed while the connection was down: every Session is read.
		notifications.onReconnect(() => {
			for (const id of this.followed.keys()) this.notified(id);
		});
	}

	/** Follows a Session: once it has readers here, notifications about it are read. */
	follow(sessionId: string, target: TailTarget): void {
		const known = this.followed.get(sessionId);
		if (known !== undefined) known.target = target;
		else this.followed.set(sessionId, { target, cursor: undefined });
	}

	unfollow(sessionId: string): void {
		this.followed.delete(sessionId);
		this.dirty.delete(sessionId);
	}

	/**
	 * A reader joins: the rows it needs (`seq > after`; none for "live from now"), read in the same
	 * queue as the live reads, so that together they leave no gap. Rows newer than the cursor also
	 * go to the readers already there (the reader's own copies are dropped by seq).
	 */
	join(sessionId: string, after: number | undefined): Promise<OmniMessage[]> {
		const entry = this.followed.get(sessionId);
		if (entry === undefined) return Promise.resolve([]);
		return this.enqueue(async () => {
			if (entry.cursor === undefined && after === undefined) {
				entry.cursor = await this.lastSeq(sessionId);
				return [];
			}
			const from = Math.min(after ?? Number.MAX_SAFE_INTEGER, entry.cursor ?? Number.MAX_SAFE_INTEGER);
			const rows = await this.rowsAfter(sessionId, from, true);
			const cursor = entry.cursor;
			const fresh = cursor === undefined ? [] : rows.filter((m) => m.seq > cursor);
			entry.cursor = Math.max(entry.cursor ?? after ?? 0, rows.at(-1)?.seq ?? 0);
			if (fresh.length > 0) entry.target.deliver(fresh);
			return after === undefined ? [] : rows.filter((m) => m.seq > after);
		});
	}

	/** A Task here wrote up to `seq` (and its readers have it): later reads start after it. */
	advance(sessionId: string, seq: number): void {
		const entry = this.followed.get(sessionId);
		if (entry !== undefined && entry.cursor !== undefined) entry.cursor = Math.max(entry.cursor, seq);
	}

	/**
	 * The Session's new rows are read as if notified: its Task here ended after losing the lease,
	 * and the notifications of what the taker wrote came while that Task ran here (skipped then).
	 */
	reread(sessionId: string): void {
		this.notified(sessionId);
	}

	/** Reads what is new for the Session now (a Task is about to start here: the previous one's end must be out first). */
	async catchUp(sessionId: string): Promise<void> {
		if (!this.followed.has(sessionId)) return;
		await this.enqueue(() => this.read([sessionId], true));
	}

	/** The Session's rows after `after`, in seq order. */
	async rowsAfter(sessionId: string, after: number, partials: boolean): Promise<OmniMessage[]> {
		const result = await this.pool.query<{ body: string }>(
			`select body from session_events where session_id = $1 and seq > $2 ${partials ? "" : "and not partial"} order by seq`,
			[sessionId, after],
		);
		return result.rows.map((r) => JSON.parse(r.body) as OmniMessage);
	}

	async lastSeq(sessionId: string): Promise<number> {
		const result = await this.pool.query<{ seq: number | null }>(
			"select max(seq) as seq from session_events where session_id = $1",
			[sessionId],
		);
		return result.rows[0]?.seq ?? 0;
	}

	private notified(sessionId: string): void {
		if (!this.followed.has(sessionId)) return;
		this.dirty.add(sessionId);
		if (this.readQueued) return;
		this.readQueued = true;
		void this.enqueue(async () => {
			this.readQueued = false;
			const ids = [...this.dirty];
			this.dirty.clear();
			await this.read(ids, false);
		});
	}

	/** One query for the new rows of several Sessions, each from its own cursor. */
	private async read(sessionIds: readonly string[], force: boolean): Promise<void> {
		const wanted = sessionIds.flatMap((id) => {
			const entry = this.followed.get(id);
			if (entry?.cursor === undefined) return [];
			if (!force && (entry.target.runningHere || !entry.target.watched)) return [];
			return [{ id, entry, cursor: entry.cursor }];
		});
		if (wanted.length === 0) return;
		// On the LISTEN connection (reads run one at a time anyway): the hot path never waits for
		// the pool behind Task starts and store writes.
		const connection = this.notifications.connection ?? this.pool;
		const result = await connection.query<{ session_id: string; body: string }>(
			`select e.session_id, e.body
			from unnest($1::text[], $2::int8[]) as c(session_id, cursor)
			join session_events e on e.session_id = c.session_id and e.seq > c.cursor
			order by e.session_id, e.seq`,
			[wanted.map((w) => w.id), wanted.map((w) => w.cursor)],
		);
		const bySession = new Map<string, OmniMessage[]>();
		for (const row of result.rows) {
			const list = bySession.get(row.session_id) ?? [];
			list.push(JSON.parse(row.body) as OmniMessage);
			bySession.set(row.session_id, list);
		}
		for (const { id, entry } of wanted) {
			const rows = bySession.get(id);
			if (rows === undefined || entry.cursor === undefined) continue;
			const cursor = entry.cursor;
			// A join may have moved the cursor on while this read ran: what it delivered is not sent again.
			const fresh = rows.filter((m) => m.seq > cursor);
			if (fresh.length === 0) continue;
			entry.cursor = (fresh.at(-1) as OmniMessage).seq;
			entry.target.deliver(fresh);
		}
	}

	private enqueue<T>(job: () => Promise<T>): Promise<T> {
		const done = this.chain.then(job);
		this.chain = done.then(
			() => {},
			(error: unknown) => this.report(error),
		);
		return done;
	}
}

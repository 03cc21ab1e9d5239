import type { OmniMessage } from "@omniloop/core";
import pg from "pg";
import { poolConfig } from "../store/postgres.js";
import { EVENTS_CHANNEL } from "./event-log.js";

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
	/** Reads of one Session run one after the other, so rows go out in seq order, each once. */
	chain: Promise<void>;
}

/**
 * The other processes' messages, live: one LISTEN connection; a notification names a Session,
 * and its new rows (`seq > cursor`) are read and handed to the readers in this process. A
 * Session is followed from the moment it has a reader here.
 */
export class EventTail {
	private readonly followed = new Map<string, Followed>();
	private listener: pg.Client | undefined;
	private closed = false;

	constructor(
		private readonly pool: pg.Pool,
		private readonly url: string,
		private readonly report: (error: unknown) => void,
	) {}

	async start(): Promise<void> {
		const client = new pg.Client(poolConfig(this.url));
		client.on("notification", (n) => {
			if (n.payload !== undefined) this.notified(n.payload);
		});
		client.on("error", (error) => {
			this.report(error);
			// A lost LISTEN connection would leave streams silent: reconnect, then catch every Session up.
			if (!this.closed) setTimeout(() => void this.restart(), 200).unref();
		});
		await client.connect();
		await client.query(`listen ${EVENTS_CHANNEL}`);
		this.listener = client;
	}

	/** Follows a Session: once it has readers here, notifications about it are read. */
	follow(sessionId: string, target: TailTarget): void {
		const known = this.followed.get(sessionId);
		if (known !== undefined) known.target = target;
		else this.followed.set(sessionId, { target, cursor: undefined, chain: Promise.resolve() });
	}

	unfollow(sessionId: string): void {
		this.followed.delete(sessionId);
	}

	/**
	 * A reader joins: the rows it needs (`seq > after`; none for "live from now"), read in the same
	 * queue as the live reads, so that together they leave no gap. Rows newer than the cursor also
	 * go to the readers already there (the reader's own copies are dropped by seq).
	 */
	join(sessionId: string, after: number | undefined): Promise<OmniMessage[]> {
		const entry = this.followed.get(sessionId);
		if (entry === undefined) return Promise.resolve([]);
		let backlog: OmniMessage[] = [];
		const job = async () => {
			if (entry.cursor === undefined && after === undefined) {
				entry.cursor = await this.lastSeq(sessionId);
				return;
			}
			const from = Math.min(after ?? Number.MAX_SAFE_INTEGER, entry.cursor ?? Number.MAX_SAFE_INTEGER);
			const rows = await this.read(sessionId, from);
			const cursor = entry.cursor;
			const fresh = cursor === undefined ? [] : rows.filter((m) => m.seq > cursor);
			entry.cursor = Math.max(entry.cursor ?? after ?? 0, rows.at(-1)?.seq ?? 0);
			if (fresh.length > 0) entry.target.deliver(fresh);
			backlog = after === undefined ? [] : rows.filter((m) => m.seq > after);
		};
		const done = entry.chain.then(job);
		entry.chain = done.catch((error: unknown) => this.report(error));
		return done.then(() => backlog);
	}

	/** A Task here wrote up to `seq` (and its readers have it): later reads start after it. */
	advance(sessionId: string, seq: number): void {
		const entry = this.followed.get(sessionId);
		if (entry !== undefined && entry.cursor !== undefined) entry.cursor = Math.max(entry.cursor, seq);
	}

	/** Reads what is new for the Session now (a Task is about to start here: the previous one's end must be out first). */
	catchUp(sessionId: string): Promise<void> {
		const entry = this.followed.get(sessionId);
		if (entry === undefined) return Promise.resolve();
		return this.enqueue(entry, sessionId, true);
	}

	/** The Session's rows after `after` (for a reader that resumes), in seq order. */
	async rowsAfter(sessionId: string, after: number, partials: boolean): Promise<OmniMessage[]> {
		const result = await this.pool.query<{ body: string }>(
			`select body from session_events where session_id = $1 and seq > $2 ${partials ? "" : "and not partial"} order by seq`,
			[sessionId, after],
		);
		return result.rows.map((r) => JSON.parse(r.body) as OmniMessage);
	}

	private async read(sessionId: string, after: number): Promise<OmniMessage[]> {
		const result = await this.pool.query<{ body: string }>(
			"select body from session_events where session_id = $1 and seq > $2 order by seq",
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

	async close(): Promise<void> {
		this.closed = true;
		await this.listener?.end().catch(() => {});
	}

	private notified(sessionId: string): void {
		const entry = this.followed.get(sessionId);
		if (entry === undefined || entry.target.runningHere || !entry.target.watched) return;
		void this.enqueue(entry, sessionId, false);
	}

	private enqueue(entry: Followed, sessionId: string, force: boolean): Promise<void> {
		entry.chain = entry.chain
			.then(async () => {
				if (entry.cursor === undefined) return;
				if (!force && (entry.target.runningHere || !entry.target.watched)) return;
				const rows = await this.read(sessionId, entry.cursor);
				if (rows.length === 0) return;
				entry.cursor = (rows.at(-1) as OmniMessage).seq;
				entry.target.deliver(rows);
			})
			.catch((error: unknown) => this.report(error));
		return entry.chain;
	}

	private async restart(): Promise<void> {
		await this.listener?.end().catch(() => {});
		this.listener = undefined;
		try {
			await this.start();
			for (const [id, entry] of this.followed) void this.enqueue(entry, id, false);
		} catch (error) {
			this.report(error);
			if (!this.closed) setTimeout(() => void this.restart(), 1000).unref();
		}
	}
}

import { performance } from "node:perf_hooks";
import { type Kysely, sql } from "kysely";
import type { ClusterDatabase } from "../../store/postgres-schema.js";

/** Now in the database's clock, in ms: every process compares leases against one clock. */
export const DB_NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::int8";
const NOW_MS = sql.raw<number>(DB_NOW_MS);

/**
 * The part of a lease a process gives up early on its own clock. Its end here is counted from
 * when the claim or renewal was sent, so it always comes before the database's (counted from when
 * the statement ran); the margin covers clocks that run at slightly different rates. docs/cluster.md
 */
const MARGIN = 0.1;

interface Held {
	/** The fencing token every write under this lease carries. */
	epoch: number;
	/** `performance.now()` past which this process no longer acts under the lease. */
	validUntil: number;
	timer: NodeJS.Timeout;
}

/** A write or action for a Session whose lease this process no longer holds (another process may run it). */
export class LeaseLostError extends Error {
	constructor(readonly key: string) {
		super(`${key}: this server process no longer holds its lease; nothing more of it runs here`);
		this.name = "LeaseLostError";
	}
}

/**
 * Which process runs each Session's Task (and drives each workflow): a row per key, claimed
 * atomically (an upsert that only takes a free or expired row) with a new epoch — the fencing
 * token the writes under it carry and the database checks — renewed while the Task runs, freed
 * when it ends. The row stays after a release, so epochs only grow. Locally the lease ends at
 * the time its last claim or renewal was sent plus `leaseMs` less a margin, on this process's
 * monotonic clock: a process paused past it finds it lost as soon as it runs again.
 */
export class Leases {
	private readonly held = new Map<string, Held>();
	private readonly timer: NodeJS.Timeout;
	/** A lease this process held is gone (it ran out here, or another process took it): what runs under it stops. */
	onLost: (key: string) => void = () => {};
	/** A renewal kept these keys (what may have been missed since the last one is looked up then). */
	onRenewed: (keys: string[]) => void = () => {};

	constructor(
		private readonly db: Kysely<ClusterDatabase>,
		readonly owner: string,
		private readonly leaseMs: number,
		private readonly report: (error: unknown) => void,
	) {
		// Renewed five times a lease, so a busy event loop or a slow round trip does not let it lapse.
		this.timer = setInterval(() => void this.renew(), Math.max(50, Math.floor(leaseMs / 5)));
		this.timer.unref();
	}

	/** This process now holds the key: its epoch; undefined when another live process does. */
	async claim(key: string): Promise<number | undefined> {
		const sent = performance.now();
		const expires = sql<number>`${NOW_MS} + ${this.leaseMs}`;
		const row = await this.db
			.insertInto("session_leases")
			.values({ session_id: key, owner: this.owner, expires_at: expires, epoch: sql<number>`nextval('lease_epochs')` })
			.onConflict((oc) =>
				oc
					.column("session_id")
					// Setting the key (to itself) makes the upsert lock the row as an update of its key,
					// which waits for the fenced writes holding it `for key share` (renewals, which
					// touch no key, do not): once a claim commits, every write of the epoch before it
					// has committed or will be refused.
					.doUpdateSet({
						session_id: sql<string>`excluded.session_id`,
						owner: this.owner,
						expires_at: expires,
						epoch: sql<number>`excluded.epoch`,
					})
					.where((eb) =>
						eb.or([eb("session_leases.expires_at", "<", NOW_MS), eb("session_leases.owner", "=", this.owner)]),
					),
			)
			.returning("epoch")
			.executeTakeFirst();
		if (row === undefined) return undefined;
		this.lose(key, false);
		const held: Held = { epoch: row.epoch, validUntil: 0, timer: setTimeout(() => {}, 0) };
		this.held.set(key, held);
		this.extend(key, held, sent);
		return row.epoch;
	}

	/** The epoch this process holds the key under; undefined once the lease is lost here (which `onLost` then hears). */
	epoch(key: string): number | undefined {
		const held = this.held.get(key);
		if (held === undefined) return undefined;
		if (performance.now() >= held.validUntil) {
			this.lose(key, true);
			return undefined;
		}
		return held.epoch;
	}

	/** Does this process hold the key (on its own clock)? */
	holds(key: string): boolean {
		return this.epoch(key) !== undefined;
	}

	/** Frees the key for any process; a no-op when another one claimed it since. */
	async release(key: string): Promise<void> {
		const held = this.held.get(key);
		this.lose(key, false);
		if (held === undefined) return;
		await this.db
			.updateTable("session_leases")
			.set({ expires_at: 0 })
			.where("session_id", "=", key)
			.where("epoch", "=", held.epoch)
			.execute();
	}

	/** Keys some live process holds (for their status in lists). */
	async busy(): Promise<Set<string>> {
		const rows = await this.db
			.selectFrom("session_leases")
			.select("session_id")
			.where("expires_at", ">=", NOW_MS)
			.execute();
		return new Set(rows.map((r) => r.session_id));
	}

	/** Does a live process (this one or another) hold the key? */
	async isHeld(key: string): Promise<boolean> {
		const row = await this.db
			.selectFrom("session_leases")
			.select("owner")
			.where("session_id", "=", key)
			.where("expires_at", ">=", NOW_MS)
			.executeTakeFirst();
		return row !== undefined;
	}

	/** The key is gone with its Session: its row too. */
	async forget(key: string): Promise<void> {
		this.lose(key, false);
		await this.db.deleteFrom("session_leases").where("session_id", "=", key).execute();
	}

	private extend(key: string, held: Held, sent: number): void {
		held.validUntil = sent + this.leaseMs * (1 - MARGIN);
		clearTimeout(held.timer);
		held.timer = setTimeout(() => this.epoch(key), Math.max(0, held.validUntil - performance.now()) + 1);
		held.timer.unref();
	}

	private lose(key: string, heard: boolean): void {
		const held = this.held.get(key);
		if (held === undefined) return;
		clearTimeout(held.timer);
		this.held.delete(key);
		if (heard) this.onLost(key);
	}

	private async renew(): Promise<void> {
		if (this.held.size === 0) return;
		const entries = [...this.held.entries()];
		const sent = performance.now();
		try {
			const renewed = await this.db
				.updateTable("session_leases")
				.set({ expires_at: sql<number>`${NOW_MS} + ${this.leaseMs}` })
				.where("owner", "=", this.owner)
				.where("expires_at", ">=", NOW_MS)
				.where((eb) =>
					eb.or(entries.map(([key, held]) => eb.and([eb("session_id", "=", key), eb("epoch", "=", held.epoch)]))),
				)
				.returning("session_id")
				.execute();
			const kept = new Set(renewed.map((r) => r.session_id));
			for (const [key, held] of entries) {
				// Released (or claimed again) meanwhile is not lost.
				if (this.held.get(key) !== held) continue;
				if (kept.has(key)) {
					// Past its end here already: lost, whatever the database says now.
					if (this.epoch(key) !== undefined) this.extend(key, held, sent);
				} else this.lose(key, true);
			}
			this.onRenewed([...kept].filter((key) => this.held.has(key)));
		} catch (error) {
			this.report(error);
		}
	}

	/** Shutdown: held leases go (the Tasks were aborted first). */
	async close(): Promise<void> {
		clearInterval(this.timer);
		for (const key of [...this.held.keys()]) await this.release(key).catch((error: unknown) => this.report(error));
	}
}

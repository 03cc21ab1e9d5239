import { type Kysely, sql } from "kysely";
import type { ClusterDatabase } from "../store/postgres-schema.js";

/** Now in the database's clock, in ms: every process compares leases against one clock. */
const NOW_MS = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::int8`;

/**
 * Which process runs each Session's Task: a row per Session, claimed atomically (an upsert that
 * only takes a free or expired row), renewed while the Task runs, deleted when it ends. A process
 * that dies stops renewing: its Sessions are free once `leaseMs` has passed.
 */
export class Leases {
	private readonly held = new Set<string>();
	private readonly timer: NodeJS.Timeout;
	/**
	 * A lease this process held is gone (renewals failed for longer than leaseMs and another
	 * process took it): its Task must stop here, as another may now run.
	 */
	onLost: (sessionId: string) => void = () => {};

	constructor(
		private readonly db: Kysely<ClusterDatabase>,
		readonly owner: string,
		private readonly leaseMs: number,
		private readonly report: (error: unknown) => void,
	) {
		// Renewed three times a lease, so one slow round trip does not let it lapse.
		this.timer = setInterval(() => void this.renew(), Math.max(50, Math.floor(leaseMs / 3)));
		this.timer.unref();
	}

	/** True when this process now holds the Session; false when another live process does. */
	async claim(sessionId: string): Promise<boolean> {
		const expires = sql<number>`${NOW_MS} + ${this.leaseMs}`;
		const row = await this.db
			.insertInto("session_leases")
			.values({ session_id: sessionId, owner: this.owner, expires_at: expires })
			.onConflict((oc) =>
				oc
					.column("session_id")
					.doUpdateSet({ owner: this.owner, expires_at: expires })
					.where((eb) =>
						eb.or([eb("session_leases.expires_at", "<", NOW_MS), eb("session_leases.owner", "=", this.owner)]),
					),
			)
			.returning("owner")
			.executeTakeFirst();
		if (row === undefined) return false;
		this.held.add(sessionId);
		return true;
	}

	async release(sessionId: string): Promise<void> {
		this.held.delete(sessionId);
		await this.db
			.deleteFrom("session_leases")
			.where("session_id", "=", sessionId)
			.where("owner", "=", this.owner)
			.execute();
	}

	/** Sessions some live process holds (for their status in lists). */
	async busy(): Promise<Set<string>> {
		const rows = await this.db
			.selectFrom("session_leases")
			.select("session_id")
			.where("expires_at", ">=", NOW_MS)
			.execute();
		return new Set(rows.map((r) => r.session_id));
	}

	/** Does this process hold the key? */
	holds(key: string): boolean {
		return this.held.has(key);
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

	private async renew(): Promise<void> {
		if (this.held.size === 0) return;
		const ids = [...this.held];
		try {
			const renewed = await this.db
				.updateTable("session_leases")
				.set({ expires_at: sql<number>`${NOW_MS} + ${this.leaseMs}` })
				.where("owner", "=", this.owner)
				.where("session_id", "in", ids)
				.returning("session_id")
				.execute();
			const kept = new Set(renewed.map((r) => r.session_id));
			for (const id of ids) {
				// Released meanwhile (the Task ended) is not lost.
				if (kept.has(id) || !this.held.has(id)) continue;
				this.held.delete(id);
				this.onLost(id);
			}
		} catch (error) {
			this.report(error);
		}
	}

	/** Shutdown: held leases go (the Tasks were aborted first). */
	async close(): Promise<void> {
		clearInterval(this.timer);
		for (const id of [...this.held]) await this.release(id).catch((error: unknown) => this.report(error));
	}
}

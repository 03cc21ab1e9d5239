import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { Leases } from "../src/cluster/leases/leases.js";
import { migrationProvider } from "../src/store/migrations.js";
import { openPostgresStore, type PostgresStore } from "../src/store/postgres.js";
import { clusterMigrationProvider } from "../src/store/postgres-migrations.js";
import { eventually, onCleanup } from "./harness.js";
import { freshDatabase } from "./pg-database.js";

async function open(url: string): Promise<PostgresStore> {
	const opened = await openPostgresStore(url);
	onCleanup(() => opened.store.close());
	return opened;
}

// What every store keeps to runs on SQLite and Postgres alike: store-contract.test.ts. Here: what
// only Postgres has, several processes on one database (migrations, Session leases).
describe("the store on Postgres, shared by several processes", () => {
	it("migrates once when five processes' stores open at the same moment, and keeps data across opens", async () => {
		const url = await freshDatabase();
		const stores = await Promise.all([1, 2, 3, 4, 5].map(() => open(url)));
		await (stores[0] as PostgresStore).store.setCredential("KEY", "v1", 1);
		expect(await (stores[4] as PostgresStore).store.credentials()).toEqual(new Map([["KEY", "v1"]]));
		const { rows } = await (stores[1] as PostgresStore).pool.query<{ name: string }>(
			"select name from kysely_migration union all select name from omniloop_cluster_migration order by name",
		);
		const expected = [
			...Object.keys(await migrationProvider.getMigrations()),
			...Object.keys(await clusterMigrationProvider.getMigrations()),
		].sort();
		// Each once, though five ran them at once.
		expect(rows.map((r) => r.name)).toEqual(expected);
	});

	it("a Session's lease: exactly one of many racing claims wins; it frees on release, or when it expires unrenewed", async () => {
		const url = await freshDatabase();
		const { db } = await open(url);
		const report = (error: unknown) => {
			throw error;
		};
		const processes = [1, 2, 3, 4].map(() => new Leases(db, randomUUID(), 400, report));
		onCleanup(async () => {
			for (const leases of processes) await leases.close();
		});
		const claims = await Promise.all(processes.map((leases) => leases.claim("s1")));
		const won = claims.findIndex((epoch) => epoch !== undefined);
		expect(claims.filter((epoch) => epoch !== undefined)).toHaveLength(1);
		const holder = processes[won] as Leases;
		const other = processes[(won + 1) % 4] as Leases;
		// Renewed while held: well past leaseMs, still taken.
		await new Promise((r) => setTimeout(r, 900));
		expect(await other.claim("s1")).toBeUndefined();
		expect(await other.busy()).toEqual(new Set(["s1"]));
		await holder.release("s1");
		// A new claim, a new fencing token: above the first one's.
		expect(await other.claim("s1")).toBeGreaterThan(claims[won] as number);
		// A holder that stops renewing (its process died): free once its lease has run out.
		await db
			.insertInto("session_leases")
			.values({ session_id: "s2", owner: "dead", expires_at: Date.now() + 400 })
			.execute();
		expect(await holder.claim("s2")).toBeUndefined();
		await new Promise((r) => setTimeout(r, 500));
		expect(await holder.claim("s2")).toBeGreaterThan(0);
	});

	it("a holder whose lease another process took (its renewals failed too long) learns it lost it", async () => {
		const { db } = await open(await freshDatabase());
		const leases = new Leases(db, randomUUID(), 300, (error) => {
			throw error;
		});
		onCleanup(() => leases.close());
		const lost: string[] = [];
		leases.onLost = (id) => lost.push(id);
		expect(await leases.claim("s1")).toBeGreaterThan(0);
		expect(await leases.claim("s2")).toBeGreaterThan(0);
		await db.updateTable("session_leases").set({ owner: "someone-else" }).where("session_id", "=", "s1").execute();
		await new Promise((r) => setTimeout(r, 400));
		expect(lost).toEqual(["s1"]);
	});

	it("a holder paused past its lease (no renewal could run) has lost it on its own clock, before the database frees it", async () => {
		const { db } = await open(await freshDatabase());
		const leaseMs = 4000;
		const leases = new Leases(db, randomUUID(), leaseMs, (error) => {
			throw error;
		});
		onCleanup(() => leases.close());
		const lost: string[] = [];
		leases.onLost = (id) => lost.push(id);
		const sent = performance.now();
		const epoch = await leases.claim("s1");
		expect(leases.epoch("s1")).toBe(epoch);
		// As SIGSTOP would: nothing of this process runs, its renewals included, past 90% of the lease.
		while (performance.now() < sent + leaseMs * 0.9 + 50) {}
		expect(leases.holds("s1")).toBe(false);
		expect(lost).toEqual(["s1"]);
		// The database has not freed it yet: another process still could not claim it.
		const other = new Leases(db, randomUUID(), leaseMs, (error) => {
			throw error;
		});
		onCleanup(() => other.close());
		expect(await other.claim("s1")).toBeUndefined();
	});

	it("a claim waits for a fenced write still in flight under the epoch before it; a renewal does not", async () => {
		const url = await freshDatabase();
		const { db, pool } = await open(url);
		const report = (error: unknown) => {
			throw error;
		};
		const a = new Leases(db, randomUUID(), 60_000, report);
		const b = new Leases(db, randomUUID(), 60_000, report);
		onCleanup(async () => {
			await a.close();
			await b.close();
		});
		const first = (await a.claim("s1")) as number;
		// A write of A's, fenced, not yet committed: it holds the lease row as the event log's insert does.
		const writer = await pool.connect();
		onCleanup(() => writer.release());
		await writer.query("begin");
		await writer.query("select 1 from session_leases where session_id = 's1' and epoch = $1 for key share", [first]);
		// Renewing (and here: letting it run out) goes through at once.
		await pool.query("update session_leases set expires_at = 0 where session_id = 's1'");
		let claimed: number | undefined;
		const claim = b.claim("s1").then((epoch) => {
			claimed = epoch;
		});
		await eventually(async () => {
			const waiting = await pool.query(
				"select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
			);
			return (waiting.rowCount ?? 0) > 0 ? true : undefined;
		});
		expect(claimed).toBeUndefined();
		await writer.query("commit");
		await claim;
		expect(claimed).toBeGreaterThan(first);
	});
});

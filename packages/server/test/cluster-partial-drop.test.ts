import type { OmniMessage } from "@omniloop/core";
import { makeMessage } from "@omniloop/core/internal";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { Cluster } from "../src/cluster/cluster.js";
import { EVENT_WRITER_APPLICATION } from "../src/cluster/events/event-log.js";
import { openPostgresStore } from "../src/store/postgres.js";
import { eventually, onCleanup, tempDirs } from "./harness.js";
import { freshDatabase } from "./pg-database.js";
import { stallInserts } from "./pg-faults.js";

const partial = (seq: number): OmniMessage => ({ ...makeMessage("partial_text", { delta: `d${seq}` }), seq });
const complete = (seq: number): OmniMessage => ({ ...makeMessage("user_text", { text: `t${seq}` }), seq });

/** One process of the cluster, in this one (its own pool, writer, leases). */
async function processOn(database: string, leaseMs: number) {
	const store = await openPostgresStore(database);
	onCleanup(() => store.store.close());
	const { home } = tempDirs();
	const cluster = await Cluster.start(store, { home, leaseMs, partialsKeepMs: 1, report: () => {} });
	onCleanup(() => cluster.close());
	return { cluster, log: cluster.sessionLog(home, "s", () => true) };
}

describe("a finished Task's partials in the event log", () => {
	it("a process that lost the lease, its rows refused, deletes none of the partials the new holder wrote at the seqs it tried", async () => {
		const database = await freshDatabase();
		const a = await processOn(database, 300);
		const b = await processOn(database, 60_000);
		const admin = new pg.Client({ connectionString: database });
		await admin.connect();
		onCleanup(() => admin.end());
		const partialsOfB = async () =>
			Number(
				(
					await admin.query<{ n: string }>(
						"select count(*) as n from session_events where session_id = 's' and partial and epoch > $1",
						[epochOfA],
					)
				).rows[0]?.n,
			);

		await a.cluster.claim("s", async () => {});
		const epochOfA = Number((await admin.query<{ epoch: string }>("select epoch from session_leases")).rows[0]?.epoch);
		a.log.publish(complete(1), new Set(), () => {});
		await a.cluster.writer.drain("s");
		// A's partials wait in the database; then A stops (its event loop blocked past its lease, as
		// SIGSTOP would); the stall ends its writer's statement, and B claims the Session.
		const stall = await stallInserts(database, "session_events", "new.partial");
		for (const seq of [2, 3, 4]) a.log.publish(partial(seq), new Set(), () => {});
		await eventually(async () => ((await stall.waiting(EVENT_WRITER_APPLICATION)) ? true : undefined));
		Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
		await stall.release();
		await b.cluster.claim("s", async () => {});
		for (const seq of [2, 3]) b.log.publish(partial(seq), new Set(), () => {});
		b.log.publish(complete(4), new Set(), () => {});
		await b.cluster.writer.drain("s");
		expect(await partialsOfB()).toBe(2);

		// A's Task ends there (its rows refused): a drop it made would come within milliseconds.
		await a.cluster.release("s");
		await eventually(async () => ((await partialsOfB()) < 2 ? true : undefined), 1_000).catch(() => {});
		expect(await partialsOfB()).toBe(2);
	});
});

import { emptyUsage } from "@omniloop/core";
import { makeMessage } from "@omniloop/core/internal";
import { describe, expect, it } from "vitest";
import { Cluster } from "../src/cluster/cluster.js";
import { openPostgresStore } from "../src/store/postgres.js";
import type { UsageRow } from "../src/store/store.js";
import { onCleanup, tempDirs } from "./harness.js";
import { freshDatabase } from "./pg-database.js";

describe("usage rows in a cluster", () => {
	it("a usage row the recorder comes to after its Task ended (lease released) is in, not refused: its token_usage row carried it", async () => {
		const pg = await openPostgresStore(await freshDatabase());
		onCleanup(() => pg.store.close());
		const errors: unknown[] = [];
		const { home } = tempDirs();
		const cluster = await Cluster.start(pg, { home, leaseMs: 60_000, report: (error) => errors.push(error) });
		onCleanup(() => cluster.close());
		const usage = { ...emptyUsage(), input: 10, output: 5, total: 15 };
		const message = { ...makeMessage("token_usage", { request: usage, session: usage }), seq: 1 };
		const row: UsageRow = { sessionId: "s", seq: 1, agentId: "default", model: "fake:m", ts: message.ts, ...usage };

		await cluster.claim("s", async () => {});
		cluster.sessionLog(home, "s", () => true).publish(message, new Set(), (error) => errors.push(error), row);
		// The Task ends before the usage recorder, busy with other Sessions' rows, comes to this one.
		await cluster.release("s");
		await cluster.addUsage(row);

		expect(errors).toEqual([]);
		expect(await pg.store.usageSums({ sessionId: "s" }, "session")).toMatchObject([{ total: 15, requests: 1 }]);
	});
});

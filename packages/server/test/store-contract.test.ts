import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";
import { onCleanup, tempDirs } from "./harness.js";
import { freshDatabase } from "./pg-database.js";

/**
 * What every store keeps to (the Store interface, src/store/store.ts), run on each backend the
 * server opens through `--database`: both legs run in every run of the server project, Postgres
 * on the throwaway cluster its global setup starts (pg-database.ts). What only one backend has
 * lives with it: src/store/sqlite.test.ts, postgres-store.test.ts.
 */
interface Backend {
	name: string;
	/** A new, empty database, as `--database` names it. */
	database(): Promise<string>;
}

const backends: Backend[] = [
	{ name: "SQLite", database: async () => join(tempDirs().home, "omniloop.db") },
	{ name: "Postgres", database: freshDatabase },
];

/** A store on `database`, as one server process opens it; closed after the test, once. */
async function open(database: string): Promise<{ store: Store; close(): Promise<void> }> {
	const { store } = await openStore(database);
	let closing: Promise<void> | undefined;
	const close = () => {
		closing ??= store.close();
		return closing;
	};
	onCleanup(close);
	return { store, close };
}

const usage = (seq: number, ts: number) => ({
	sessionId: "s1",
	seq,
	agentId: "a",
	model: "m",
	ts,
	input: 10,
	output: 2,
	cacheRead: 1,
	cacheWrite: 0,
	reasoning: 0,
	total: 12,
});

const session = (createdAt: number, updatedAt: number) => ({
	id: "s1",
	agentId: "a",
	model: "m",
	workspaceDir: "/w",
	title: null,
	createdAt,
	updatedAt,
	lockCredential: null,
});

describe.each(backends)("the store on $name", (backend) => {
	it("is migrated once: opening it again keeps the data", async () => {
		const database = await backend.database();
		const first = await open(database);
		await first.store.setCredential("KEY", "v1", 1);
		await first.close();
		const { store: again } = await open(database);
		expect(await again.credentials()).toEqual(new Map([["KEY", "v1"]]));
	});

	it("usage rows are idempotent per (session, seq), kept after the Session is deleted, and sum by group", async () => {
		const { store } = await open(await backend.database());
		const day = Date.UTC(2026, 0, 2, 23, 0);
		await store.putSession(session(1, 1));
		await store.addUsage(usage(5, day));
		await store.addUsage(usage(5, day));
		await store.addUsage(usage(9, day + 2 * 3600_000));
		await store.deleteSession("s1");
		expect(await store.getSession("s1")).toBeUndefined();
		expect((await store.usageRows({ sessionId: "s1" })).map((r) => r.seq)).toEqual([5, 9]);
		expect(await store.lastUsageSeq("s1")).toBe(9);
		expect(await store.lastUsageSeq("s2")).toBe(0);
		const byDay = await store.usageSums({}, "day");
		expect(byDay.map((s) => [s.key, s.requests, s.total])).toEqual([
			["2026-01-02", 1, 12],
			["2026-01-03", 1, 12],
		]);
		expect(await store.usageRows({ from: day + 1 })).toHaveLength(1);
		expect(await store.usageRows({ to: day + 1 })).toHaveLength(1);
	});

	it("hands back numbers, not pg's int8 strings: times, seqs, sums and counts", async () => {
		const { store } = await open(await backend.database());
		const day = Date.UTC(2026, 0, 2, 23, 0);
		await store.putSession(session(1_764_000_000_123, 1_764_000_000_456));
		await store.addUsage(usage(5, day));
		await store.addUsage(usage(5, day));
		await store.addUsage(usage(9, day + 2 * 3600_000));
		expect(await store.getSession("s1")).toMatchObject({ createdAt: 1_764_000_000_123, updatedAt: 1_764_000_000_456 });
		const rows = await store.usageRows({ sessionId: "s1" });
		expect(rows.map((r) => [r.seq, r.ts, r.total])).toEqual([
			[5, day, 12],
			[9, day + 2 * 3600_000, 12],
		]);
		const sums = await store.usageSums({}, "session");
		expect(sums).toEqual([
			{
				key: "s1",
				model: "m",
				requests: 2,
				input: 20,
				output: 4,
				cacheRead: 2,
				cacheWrite: 0,
				reasoning: 0,
				total: 24,
			},
		]);
		await store.deleteSession("s1");
		expect(await store.usageRows({ sessionId: "s1" })).toHaveLength(2);
	});

	it("the first decision of a confirmation wins; interrupting leaves only decided rows", async () => {
		const { store } = await open(await backend.database());
		const ask = (id: string) =>
			store.addConfirmation({
				correlationId: id,
				sessionId: "s",
				callId: id,
				name: "t",
				arguments: "{}",
				requestedAt: 1,
			});
		await ask("c1");
		await ask("c2");
		await ask("c3");
		expect((await store.pendingConfirmations("s")).map((c) => c.correlationId)).toEqual(["c1", "c2", "c3"]);
		expect(await store.decideConfirmation("c1", "allow", 2)).toBe("allow");
		expect(await store.decideConfirmation("c1", "deny", 3)).toBe("allow");
		expect(await store.interruptPendingConfirmations(4)).toBe(2);
		expect(await store.pendingConfirmations("s")).toEqual([]);
		expect((await store.getConfirmation("c2"))?.decision).toBe("interrupted");
	});

	it("the first decision of a confirmation wins, across two processes' stores racing", async () => {
		const database = await backend.database();
		const [a, b] = [await open(database), await open(database)];
		await a.store.addConfirmation({
			correlationId: "c1",
			sessionId: "s",
			callId: "k",
			name: "t",
			arguments: "{}",
			requestedAt: 1,
		});
		const [first, second] = await Promise.all([
			a.store.decideConfirmation("c1", "allow", 2),
			b.store.decideConfirmation("c1", "deny", 2),
		]);
		expect(first).toBe(second);
		expect((await b.store.getConfirmation("c1"))?.decision).toBe(first);
	});
});

import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "./sqlite.js";
import type { Store } from "./store.js";

const opened: { store: Store; dir: string }[] = [];
afterEach(async () => {
	for (const { store, dir } of opened.splice(0)) {
		await store.close();
		rmSync(dir, { recursive: true, force: true });
	}
});

async function open(): Promise<{ store: Store; file: string }> {
	const dir = mkdtempSync(join(tmpdir(), "omniloop-store-"));
	const file = join(dir, "omniloop.db");
	const store = await openSqliteStore(file);
	opened.push({ store, dir });
	return { store, file };
}

const row = (seq: number, ts: number, sessionId = "s1") => ({
	sessionId,
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

describe("the SQLite store", () => {
	it("is a 0600 file, migrated once (opening it again keeps the data)", async () => {
		const { store, file } = await open();
		expect(statSync(file).mode & 0o777).toBe(0o600);
		await store.setCredential("KEY", "v1", 1);
		await store.close();
		const again = await openSqliteStore(file);
		expect(await again.credentials()).toEqual(new Map([["KEY", "v1"]]));
		opened[0] = { store: again, dir: join(file, "..") };
	});

	it("usage rows are idempotent per (session, seq), kept after the Session is deleted, and sum by group", async () => {
		const { store } = await open();
		const day = Date.UTC(2026, 0, 2, 23, 0);
		await store.putSession({
			id: "s1",
			agentId: "a",
			model: "m",
			workspaceDir: "/w",
			title: null,
			createdAt: 1,
			updatedAt: 1,
			lockCredential: null,
		});
		await store.addUsage(row(5, day));
		await store.addUsage(row(5, day));
		await store.addUsage(row(9, day + 2 * 3600_000));
		await store.deleteSession("s1");
		expect(await store.getSession("s1")).toBeUndefined();
		expect((await store.usageRows({ sessionId: "s1" })).map((r) => r.seq)).toEqual([5, 9]);
		const byDay = await store.usageSums({}, "day");
		expect(byDay.map((s) => [s.key, s.requests, s.total])).toEqual([
			["2026-01-02", 1, 12],
			["2026-01-03", 1, 12],
		]);
		expect(await store.usageRows({ from: day + 1 })).toHaveLength(1);
		expect(await store.usageRows({ to: day + 1 })).toHaveLength(1);
	});

	it("the first decision of a confirmation wins; interrupting leaves only decided rows", async () => {
		const { store } = await open();
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
});

import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "./sqlite.js";
import type { Store } from "./store.js";

// What every store keeps to runs on SQLite and Postgres alike: test/store-contract.test.ts.

const opened: { store: Store; dir: string }[] = [];
afterEach(async () => {
	for (const { store, dir } of opened.splice(0)) {
		await store.close();
		rmSync(dir, { recursive: true, force: true });
	}
});

describe("the SQLite store", () => {
	it("is a 0600 file: it holds credentials", async () => {
		const dir = mkdtempSync(join(tmpdir(), "omniloop-store-"));
		const file = join(dir, "omniloop.db");
		const store = await openSqliteStore(file);
		opened.push({ store, dir });
		expect(statSync(file).mode & 0o777).toBe(0o600);
		await store.setCredential("KEY", "v1", 1);
		expect(statSync(file).mode & 0o777).toBe(0o600);
	});
});

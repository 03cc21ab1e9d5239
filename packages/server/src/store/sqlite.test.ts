import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
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

	it("finds a Session's workflow by an index, not a scan of every workflow (asked before every chat message)", async () => {
		const dir = mkdtempSync(join(tmpdir(), "omniloop-store-"));
		const file = join(dir, "omniloop.db");
		opened.push({ store: await openSqliteStore(file), dir });
		const db = new Database(file, { readonly: true });
		try {
			const plan = db.prepare("explain query plan select * from workflows where session_id = ?").all("s") as {
				detail: string;
			}[];
			expect(plan.map((step) => step.detail).join("; ")).toContain("USING INDEX workflows_session");
		} finally {
			db.close();
		}
	});
});

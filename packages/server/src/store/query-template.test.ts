import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { StoredWorkflow } from "../workflows/workflow-types.js";
import { openSqliteStore } from "./sqlite.js";
import type { Store, StoredSession } from "./store.js";

const opened: { store: Store; dir: string }[] = [];
afterEach(async () => {
	for (const { store, dir } of opened.splice(0)) {
		await store.close();
		rmSync(dir, { recursive: true, force: true });
	}
});

async function open(): Promise<Store> {
	const dir = mkdtempSync(join(tmpdir(), "omniloop-template-"));
	const store = await openSqliteStore(join(dir, "omniloop.db"));
	opened.push({ store, dir });
	return store;
}

const session = (id: string, n: number): StoredSession => ({
	id,
	agentId: `agent-${n}`,
	model: `model-${n}`,
	workspaceDir: `/work/${n}`,
	title: null,
	createdAt: 1000 + n,
	updatedAt: 2000 + n,
	lockCredential: null,
});

// The hot queries are built once and bound to each call's values (query-template.ts): every
// value must land in its own column, call after call, whichever columns a change sets.
describe("the store's query templates", () => {
	it("put, updated and put again, each Session keeps its own values", async () => {
		const store = await open();
		await store.putSession(session("a", 1));
		await store.putSession(session("b", 2));
		await store.updateSession("a", { title: "first" });
		await store.updateSession("b", { lockCredential: "KEY", updatedAt: 5000 });
		await store.updateSession("a", { title: "again", updatedAt: 6000 });
		await store.updateSession("b", { lockCredential: null });
		expect(await store.getSession("a")).toEqual({ ...session("a", 1), title: "again", updatedAt: 6000 });
		expect(await store.getSession("b")).toEqual({ ...session("b", 2), updatedAt: 5000 });
		await store.putSession({ ...session("a", 3), id: "a" });
		expect(await store.getSession("a")).toEqual(session("a", 3));
		expect(await store.getSession("b")).toEqual({ ...session("b", 2), updatedAt: 5000 });
	});

	it("finds a Session's workflow by its id, and none for another", async () => {
		const store = await open();
		expect(await store.workflows.bySession("s1")).toBeUndefined();
		const workflow: StoredWorkflow = {
			id: "w1",
			name: null,
			sessionId: "s1",
			status: "running",
			input: "go",
			steps: [{ agent: "a", prompt: "p" }],
			step: 0,
			answers: [],
			stepStartedSeq: 0,
			approvalTimeoutMs: null,
			result: null,
			error: null,
			createdAt: 1,
			updatedAt: 2,
		};
		await store.workflows.insert(workflow);
		expect(await store.workflows.bySession("s1")).toEqual(workflow);
		expect(await store.workflows.bySession("s2")).toBeUndefined();
	});
});

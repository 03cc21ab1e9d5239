import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Cluster } from "../src/cluster/cluster.js";
import { LeaseLostError } from "../src/cluster/leases.js";
import { openPostgresStore, type PostgresStore } from "../src/store/postgres.js";
import { Deadlines } from "../src/workflows/deadlines.js";
import { finish } from "../src/workflows/steps.js";
import type { WorkflowContext } from "../src/workflows/workflow-context.js";
import type { StoredWorkflow } from "../src/workflows/workflow-types.js";
import { onCleanup } from "./harness.js";
import { freshDatabase } from "./pg-database.js";

/** One server process's part of the cluster: its own pool and leases on the shared database. */
async function processOn(url: string): Promise<{ pg: PostgresStore; cluster: Cluster; ctx: WorkflowContext }> {
	const pg = await openPostgresStore(url);
	onCleanup(() => pg.store.close());
	const cluster = await Cluster.start(pg, { home: "/nonexistent", leaseMs: 60_000, report: () => {} });
	onCleanup(() => cluster.close());
	// `finish` reads the store, the Coordinator and the deadlines only.
	const ctx = {
		store: pg.store.workflows,
		host: { coordinator: cluster, report: () => {} },
		deadlines: new Deadlines(),
	} as unknown as WorkflowContext;
	return { pg, cluster, ctx };
}

function runningWorkflow(): StoredWorkflow {
	const now = Date.now();
	return {
		id: randomUUID(),
		name: null,
		sessionId: randomUUID(),
		status: "running",
		input: "go",
		steps: [{ agent: "default_agent", prompt: "go" }],
		step: 0,
		answers: [],
		stepStartedSeq: 0,
		approvalTimeoutMs: null,
		result: null,
		error: null,
		createdAt: now,
		updatedAt: now,
	};
}

describe("fencing: workflow state", () => {
	it("a stale driver's end of the workflow is refused by the database once another process took the workflow up", async () => {
		const url = await freshDatabase();
		const a = await processOn(url);
		const b = await processOn(url);
		const workflow = runningWorkflow();
		await a.pg.store.workflows.insert(workflow);
		expect(await a.cluster.holdWorkflow(workflow.id)).toBe(true);
		// A is paused past its lease (its own clock has not seen that yet): the row expires, B takes it up.
		await a.pg.pool.query("update session_leases set expires_at = 0 where session_id = $1", [
			`workflow:${workflow.id}`,
		]);
		expect(await b.cluster.holdWorkflow(workflow.id)).toBe(true);
		expect(a.cluster.holdsWorkflow(workflow.id)).toBe(true);

		await expect(finish(a.ctx, workflow.id, "failed", { error: "from the stale driver" })).rejects.toBeInstanceOf(
			LeaseLostError,
		);
		expect(await b.pg.store.workflows.get(workflow.id)).toMatchObject({ status: "running", error: null });
		await finish(b.ctx, workflow.id, "completed", { result: { text: "done" } });
		expect(await a.pg.store.workflows.get(workflow.id)).toMatchObject({ status: "completed" });
	});
});

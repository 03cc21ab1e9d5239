import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Cluster } from "../src/cluster/cluster.js";
import { LeaseLostError } from "../src/cluster/leases/leases.js";
import { openPostgresStore, type PostgresStore } from "../src/store/postgres.js";
import { ApprovalWaits } from "../src/workflows/approvals/approval-waits.js";
import { ask, settle } from "../src/workflows/approvals/approvals.js";
import { Deadlines } from "../src/workflows/approvals/deadlines.js";
import { resume } from "../src/workflows/approvals/decisions.js";
import { KeyedLock } from "../src/workflows/driving/keyed-lock.js";
import { continueFromStore } from "../src/workflows/recovery.js";
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
	// What the driver's writes under test read: the store, the Coordinator, the deadlines, the
	// lock and waits; the Sessions' part is empty (no Trace asked anything, no Task runs here).
	const ctx = {
		store: pg.store.workflows,
		host: { coordinator: cluster, report: () => {}, sessions: { history: () => [] } },
		registry: { get: () => ({}), find: () => undefined },
		deadlines: new Deadlines(),
		lock: new KeyedLock(),
		waits: new ApprovalWaits(),
		live: new Set<string>(),
		expire: () => {},
		closing: false,
	} as unknown as WorkflowContext;
	return { pg, cluster, ctx };
}

function runningWorkflow(steps: StoredWorkflow["steps"] = [{ agent: "default_agent", prompt: "go" }]): StoredWorkflow {
	const now = Date.now();
	return {
		id: randomUUID(),
		name: null,
		sessionId: randomUUID(),
		status: "running",
		input: "go",
		steps,
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

/** A and B on one database; A drove `workflow` and was paused past its lease; B took it up. */
async function takenFromA(workflow: StoredWorkflow) {
	const url = await freshDatabase();
	const a = await processOn(url);
	const b = await processOn(url);
	await a.pg.store.workflows.insert(workflow);
	expect(await a.cluster.holdWorkflow(workflow.id)).toBe(true);
	// A's own clock has not seen the pause yet: it still believes it drives the workflow.
	await a.pg.pool.query("update session_leases set expires_at = 0 where session_id = $1", [`workflow:${workflow.id}`]);
	expect(await b.cluster.holdWorkflow(workflow.id)).toBe(true);
	expect(a.cluster.holdsWorkflow(workflow.id)).toBe(true);
	return { a, b };
}

function question(correlationId: string) {
	return {
		kind: "call" as const,
		correlationId,
		callId: "c1",
		name: "shell",
		arguments: "{}",
		requestedAt: Date.now(),
	};
}

describe("fencing: a stale driver's approvals and statuses", () => {
	it("ask: the question a stale driver records is refused (no approval row, no status)", async () => {
		const workflow = runningWorkflow();
		const { a, b } = await takenFromA(workflow);
		await expect(ask(a.ctx, workflow, question("q-stale"))).rejects.toBeInstanceOf(LeaseLostError);
		expect(await b.pg.store.workflows.approvals(workflow.id)).toEqual([]);
		expect((await b.pg.store.workflows.get(workflow.id))?.status).toBe("running");
	});

	it("settle: a stale driver's status write is refused; a person's settle on any process is recorded", async () => {
		const workflow = runningWorkflow();
		const { a, b } = await takenFromA(workflow);
		await b.pg.store.workflows.addApproval({ ...question("q1"), workflowId: workflow.id, expiresAt: null });
		await expect(settle(a.ctx, workflow.id)).rejects.toBeInstanceOf(LeaseLostError);
		expect((await b.pg.store.workflows.get(workflow.id))?.status).toBe("running");
		// A person's decision is recorded whoever drives (here: A, which drives nothing any more).
		expect(await settle(a.ctx, workflow.id, "person")).toBe("waiting_approval");
		expect((await b.pg.store.workflows.get(workflow.id))?.status).toBe("waiting_approval");
	});

	it("resume: a stale driver (its Task still live there) neither releases the decisions nor sets the status", async () => {
		const workflow = { ...runningWorkflow(), status: "ready" as const };
		const { a, b } = await takenFromA(workflow);
		await b.pg.store.workflows.addApproval({ ...question("q1"), workflowId: workflow.id, expiresAt: null });
		await b.pg.store.workflows.decide("q1", "allow", "user", Date.now());
		a.ctx.live.add(workflow.id);
		await expect(resume(a.ctx, workflow.id)).rejects.toBeInstanceOf(LeaseLostError);
		expect(await b.pg.store.workflows.approvals(workflow.id)).toMatchObject([{ decision: "allow", released: false }]);
		expect((await b.pg.store.workflows.get(workflow.id))?.status).toBe("ready");
	});

	it("recovery: a stale taker drops no approval", async () => {
		const workflow = { ...runningWorkflow([{ approval: "go on?" }]), status: "waiting_approval" as const };
		const { a, b } = await takenFromA(workflow);
		const store = b.pg.store.workflows;
		const gate = { ...question(`gate-${workflow.id}-0`), kind: "gate" as const, name: "approval" };
		await store.addApproval({ ...gate, workflowId: workflow.id, expiresAt: null });
		// A call the Trace (empty here) never asked: a driver would drop it.
		await store.addApproval({ ...question("q-unasked"), workflowId: workflow.id, expiresAt: null });
		await expect(continueFromStore(a.ctx, workflow)).rejects.toBeInstanceOf(LeaseLostError);
		expect((await store.approvals(workflow.id)).map((x) => x.correlationId)).toEqual([gate.correlationId, "q-unasked"]);
	});
});

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

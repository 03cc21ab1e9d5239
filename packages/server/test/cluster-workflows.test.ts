import pg from "pg";
import { describe, expect, it } from "vitest";
import { EVENT_WRITER_APPLICATION } from "../src/cluster/events/event-log.js";
import { LISTEN_APPLICATION } from "../src/cluster/events/notifications.js";
import { twoHomes, waitingOnA } from "./cluster-workflow-set-up.js";
import { eventually, onCleanup } from "./harness.js";
import { stallInserts } from "./pg-faults.js";
import { getWorkflow, linesOf, planInput, post, serve, startWorkflow, until } from "./workflows-harness.js";

describe("workflows across servers on one Postgres", () => {
	it("kill -9 of A during a workflow's wait: B (started meanwhile, another home) leaves it alone while A lives, then completes it after approve + resume; the tool ran once", async () => {
		const { provider, home, root, homeB, env } = await twoHomes();
		const a = await serve(home, root, env);
		const id = await startWorkflow(a.api, { input: planInput(["echo ran >> ran.txt"]) });
		const waiting = await until(a.api, id, ["waiting_approval"]);
		// B starts while A's Task waits: the workflow stays A's (not taken up, not failed).
		const b = await serve(homeB, root, env);
		expect((await getWorkflow(b.api, id)).status).toBe("waiting_approval");
		expect((await getWorkflow(a.api, id)).status).toBe("waiting_approval");
		const [pending] = (await getWorkflow(b.api, id)).pendingApprovals;
		expect(pending?.correlationId).toBe(waiting.pendingApprovals[0]?.correlationId);
		// No wait for A's Trace upload: the question went to the database before A waited on it.
		await a.kill();

		// Once A's lease has run out, B takes the approval.
		const approved = await eventually(async () => {
			const r = await post(b.api, `/workflows/${id}/approve`, {
				correlationId: pending?.correlationId,
				decision: "allow",
			});
			return r.status === 409 ? undefined : r;
		}, 10_000);
		expect(approved).toEqual({ status: 200, body: { status: "ready" } });
		expect(linesOf(root, "ran.txt")).toEqual([]);
		expect(await post(b.api, `/workflows/${id}/resume`)).toEqual({ status: 202, body: { status: "running" } });
		const done = await until(b.api, id, ["completed", "failed", "cancelled"]);
		expect([done.status, done.error]).toEqual(["completed", undefined]);
		expect(linesOf(root, "ran.txt")).toEqual(["ran"]);
		expect(provider.requestsWithUnpairedCalls).toEqual([]);
	});
});

describe("any action from any process", () => {
	it("approve and resume on B while the workflow's Task waits on A: recorded on B, carried out by A; the tool ran once", async () => {
		const { a, b, id, root } = await approvedOnB();
		expect((await getWorkflow(a.api, id)).status).toBe("ready");
		expect(await post(b.api, `/workflows/${id}/resume`)).toEqual({ status: 202, body: { status: "running" } });
		const done = await until(a.api, id, ["completed", "failed", "cancelled"]);
		expect([done.status, done.error]).toEqual(["completed", undefined]);
		expect(linesOf(root, "ran.txt")).toEqual(["ran"]);
	});

	it("resume on B while A's LISTEN connection is down (its notification lost): A finds the recorded resume by itself; the tool ran once", {
		timeout: 60_000,
	}, async () => {
		const { a, b, id, root, env } = await approvedOnB();
		const admin = new pg.Client({ connectionString: env.OMNILOOP_DATABASE_URL });
		await admin.connect();
		onCleanup(() => admin.end());
		// Every process's LISTEN connection is cut, again and again, until the resume has committed:
		// its NOTIFY reaches no one.
		const cut = () =>
			// Only this test's database: other test files run beside it on the same Postgres.
			admin.query(
				"select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = $1",
				[LISTEN_APPLICATION],
			);
		await cut();
		let resumed = false;
		const cutting = (async () => {
			while (!resumed) await cut();
		})();
		const resume = await post(b.api, `/workflows/${id}/resume`);
		resumed = true;
		await cutting;
		expect(resume).toEqual({ status: 202, body: { status: "running" } });
		const done = await until(a.api, id, ["completed", "failed", "cancelled"]);
		expect([done.status, done.error]).toEqual(["completed", undefined]);
		expect(linesOf(root, "ran.txt")).toEqual(["ran"]);
	});

	it("cancel on B while the workflow's Task waits on A: cancelled everywhere, the call never runs", async () => {
		const { home, root, homeB, env } = await twoHomes();
		const a = await serve(home, root, env);
		const b = await serve(homeB, root, env);
		const id = await startWorkflow(a.api, { input: planInput(["echo never >> ran.txt"]) });
		await until(b.api, id, ["waiting_approval"]);
		expect(await post(b.api, `/workflows/${id}/cancel`)).toMatchObject({ status: 200 });
		expect((await until(a.api, id, ["cancelled"])).status).toBe("cancelled");
		expect(linesOf(root, "ran.txt")).toEqual([]);
	});
});

/** A project on one database with two server homes (A's and B's), leases of 1.5 s. */
/** A workflow started on A whose call B approved (status `ready`) while A's Task waits on it. */
async function approvedOnB() {
	const { home, root, homeB, env } = await twoHomes();
	const a = await serve(home, root, env);
	const b = await serve(homeB, root, env);
	const id = await startWorkflow(a.api, { input: planInput(["echo ran >> ran.txt"]) });
	const waiting = await until(b.api, id, ["waiting_approval"]);
	const correlationId = waiting.pendingApprovals[0]?.correlationId;
	expect(await post(b.api, `/workflows/${id}/approve`, { correlationId, decision: "allow" })).toEqual({
		status: 200,
		body: { status: "ready" },
	});
	return { a, b, id, root, env };
}

describe("a question is recorded only once the event log holds it", () => {
	it("kill -9 while a workflow's confirmation_required is on its way to the event log: no approval was recorded for it, and the call gets one decision", async () => {
		const { home, homeB, root, env } = await twoHomes();
		const a = await serve(home, root, env);
		const b = await serve(homeB, root, env);
		// The row that asks a person about the call waits in the event log's writer.
		const stall = await stallInserts(
			env.OMNILOOP_DATABASE_URL,
			"session_events",
			"new.body::jsonb->>'type' = 'confirmation_required'",
		);
		const id = await startWorkflow(a.api, { input: planInput(["echo never >> ran.txt"]), approvalTimeoutMs: 3000 });
		await eventually(async () => ((await stall.waiting(EVENT_WRITER_APPLICATION)) ? true : undefined));
		// The row that asks is not committed: the store must not have the question either.
		expect(await stall.query("select correlation_id from workflow_approvals where workflow_id = $1", [id])).toEqual([]);
		await a.kill();
		await stall.release();

		// B takes the workflow up, asks again, and the deadline decides that one question.
		const done = await until(b.api, id, ["completed", "failed", "cancelled"], () => true, 20_000);
		expect([done.status, done.error]).toEqual(["completed", undefined]);
		expect(done.approvals).toHaveLength(1);
		expect(done.approvals[0]).toMatchObject({ decision: "deny", by: "timeout" });
		expect(linesOf(root, "ran.txt")).toEqual([]);
	});
});

describe("a living server takes up the workflows of one that died, without a restart", () => {
	it("kill -9 of A while its workflow's tool runs: B, serving all along, takes it up once A's lease has run out and completes it; the call is not run again", async () => {
		const { provider, home, homeB, root, env } = await twoHomes();
		const a = await serve(home, root, env);
		const b = await serve(homeB, root, env);
		const id = await startWorkflow(a.api, { agentId: "auto", input: planInput(["echo started >> ran.txt; sleep 8"]) });
		await eventually(() => (linesOf(root, "ran.txt").length === 1 ? true : undefined));
		expect((await getWorkflow(b.api, id)).status).toBe("running");
		await a.kill();
		const killedAt = Date.now();

		const done = await until(b.api, id, ["completed", "failed", "cancelled"], () => true, 15_000);
		expect([done.status, done.error]).toEqual(["completed", undefined]);
		// Within a lease or two of the kill (a sweep each lease), not at some later restart.
		expect(Date.now() - killedAt).toBeLessThan(8_000);
		expect(linesOf(root, "ran.txt")).toEqual(["started"]);
		// The model saw the call's interrupted output, in a validly paired request.
		expect(provider.requests.at(-1)?.rawBody ?? "").toContain("interrupted");
		expect(provider.requestsWithUnpairedCalls).toEqual([]);
	});

	it("an approval deadline of a workflow whose server died is kept by B: undecided past it, it is a deny by timeout and the workflow goes on", async () => {
		const { home, homeB, root, env } = await twoHomes();
		const a = await serve(home, root, env);
		const b = await serve(homeB, root, env);
		const id = await startWorkflow(a.api, { input: planInput(["echo never >> ran.txt"]), approvalTimeoutMs: 3000 });
		const waiting = await until(a.api, id, ["waiting_approval"]);
		const [pending] = waiting.pendingApprovals;
		await a.kill();

		const done = await until(b.api, id, ["completed", "failed", "cancelled"], () => true, 15_000);
		expect([done.status, done.error]).toEqual(["completed", undefined]);
		expect(done.approvals).toMatchObject([{ correlationId: pending?.correlationId, decision: "deny", by: "timeout" }]);
		expect(Date.now()).toBeGreaterThanOrEqual(pending?.expiresAt ?? 0);
		expect(linesOf(root, "ran.txt")).toEqual([]);
	});
});

describe("a person's decision is never refused for timing", () => {
	it("approve on B between the question's confirmation_required commit and its store record (the store write stalled): recorded, then resume runs the call once", {
		timeout: 60_000,
	}, async () => {
		const { home, homeB, root, env } = await twoHomes();
		const a = await serve(home, root, env);
		const b = await serve(homeB, root, env);
		// The driver's record of the question waits in the database (a decided row, B's, does not).
		const stall = await stallInserts(env.OMNILOOP_DATABASE_URL, "workflow_approvals", "new.decision is null");
		const id = await startWorkflow(a.api, { input: planInput(["echo ran >> ran.txt"]) });
		const asked = await eventually(async () => {
			const rows = await stall.query<{ id: string }>(
				"select body::jsonb->>'correlationId' as id from session_events where body::jsonb->>'type' = 'confirmation_required'",
			);
			return rows[0]?.id;
		});
		expect(await stall.query("select 1 from workflow_approvals where workflow_id = $1", [id])).toEqual([]);
		expect(await post(b.api, `/workflows/${id}/approve`, { correlationId: asked, decision: "allow" })).toEqual({
			status: 200,
			body: { status: "ready" },
		});
		await stall.release({ endWaiting: false });
		await until(a.api, id, ["ready"]);
		expect(await post(b.api, `/workflows/${id}/resume`)).toEqual({ status: 202, body: { status: "running" } });
		const done = await until(a.api, id, ["completed", "failed", "cancelled"]);
		expect([done.status, done.error]).toEqual(["completed", undefined]);
		expect(done.approvals).toMatchObject([{ correlationId: asked, decision: "allow" }]);
		expect(linesOf(root, "ran.txt")).toEqual(["ran"]);
	});
});

describe("actions while the holder is dead (its lease not yet run out)", () => {
	it("kill -9 of A while its workflow waits: approve and resume on B at once are recorded (no 409), and B, taking the workflow up, runs the call once", {
		timeout: 60_000,
	}, async () => {
		const { a, b, id, root, pending } = await waitingOnA();
		await a.kill();
		const correlationId = pending?.correlationId;
		expect(await post(b.api, `/workflows/${id}/approve`, { correlationId, decision: "allow" })).toEqual({
			status: 200,
			body: { status: "ready" },
		});
		expect(await post(b.api, `/workflows/${id}/resume`)).toEqual({ status: 202, body: { status: "running" } });
		const done = await until(b.api, id, ["completed", "failed", "cancelled"], () => true, 20_000);
		expect([done.status, done.error]).toEqual(["completed", undefined]);
		expect(linesOf(root, "ran.txt")).toEqual(["ran"]);
	});

	it("kill -9 of A while its workflow waits: cancel on B at once is recorded; the call never runs", {
		timeout: 60_000,
	}, async () => {
		const { a, b, id, root } = await waitingOnA("echo never >> ran.txt");
		await a.kill();
		expect(await post(b.api, `/workflows/${id}/cancel`)).toEqual({ status: 200, body: { status: "cancelled" } });
		expect((await getWorkflow(b.api, id)).status).toBe("cancelled");
		expect(linesOf(root, "ran.txt")).toEqual([]);
	});
});

describe("a driver paused past its lease", () => {
	it("SIGSTOP of A while its workflow waits; B approves, resumes and completes it; after SIGCONT, A writes nothing of the workflow", {
		timeout: 60_000,
	}, async () => {
		const { a, b, id, root, env, pending } = await waitingOnA();
		a.child.kill("SIGSTOP");
		onCleanup(() => void a.child.kill("SIGCONT"));
		const correlationId = pending?.correlationId;
		expect(await post(b.api, `/workflows/${id}/approve`, { correlationId, decision: "allow" })).toMatchObject({
			status: 200,
		});
		await eventually(async () => {
			const r = await post(b.api, `/workflows/${id}/resume`);
			return r.status === 202 ? r : undefined;
		}, 15_000);
		const done = await until(b.api, id, ["completed", "failed", "cancelled"], () => true, 20_000);
		expect([done.status, done.error]).toEqual(["completed", undefined]);
		const admin = new pg.Client({ connectionString: env.OMNILOOP_DATABASE_URL });
		await admin.connect();
		onCleanup(() => admin.end());
		const snapshot = () =>
			admin.query(
				"select w.status, w.step, w.updated_at, a.correlation_id, a.decision, a.released from workflows w left join workflow_approvals a on a.workflow_id = w.id where w.id = $1 order by a.position",
				[id],
			);
		const before = (await snapshot()).rows;
		a.child.kill("SIGCONT");
		// A runs again: its overdue timers (renewals, sweeps, its Task's waits) have had their turn
		// once it answers a request after them.
		expect((await getWorkflow(a.api, id)).status).toBe("completed");
		expect((await getWorkflow(a.api, id)).status).toBe("completed");
		expect((await snapshot()).rows).toEqual(before);
		expect(linesOf(root, "ran.txt")).toEqual(["ran"]);
	});
});

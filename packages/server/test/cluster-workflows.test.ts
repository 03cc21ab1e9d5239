import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { eventually } from "./harness.js";
import { freshDatabase } from "./pg-database.js";
import {
	getWorkflow,
	linesOf,
	planInput,
	post,
	serve,
	startWorkflow,
	until,
	workflowProject,
} from "./workflows-harness.js";

/** Bytes of a Session's Trace the database holds. */
async function tracedBytes(database: string, sessionId: string): Promise<number> {
	const client = new pg.Client({ connectionString: database });
	await client.connect();
	try {
		const result = await client.query<{ n: number | null }>(
			"select sum(length(bytes))::int as n from trace_chunks where session_id = $1",
			[sessionId],
		);
		return result.rows[0]?.n ?? 0;
	} finally {
		await client.end();
	}
}

describe("workflows across servers on one Postgres", () => {
	it("kill -9 of A during a workflow's wait: B (started meanwhile, another home) leaves it alone while A lives, then completes it after approve + resume; the tool ran once", async () => {
		const { provider, home, root, base } = await workflowProject();
		const database = await freshDatabase();
		const homeB = join(base, "home-b");
		mkdirSync(homeB);
		for (const dir of [home, homeB]) writeFileSync(join(dir, "system_config.yaml"), "server:\n  leaseMs: 1500\n");
		const env = { OMNILOOP_DATABASE_URL: database };
		const a = await serve(home, root, env);
		const id = await startWorkflow(a.api, { input: planInput(["echo ran >> ran.txt"]) });
		const waiting = await until(a.api, id, ["waiting_approval"]);
		// B starts while A's Task waits: the workflow stays A's (not taken up, not failed).
		const b = await serve(homeB, root, env);
		expect((await getWorkflow(b.api, id)).status).toBe("waiting_approval");
		expect((await getWorkflow(a.api, id)).status).toBe("waiting_approval");
		const [pending] = (await getWorkflow(b.api, id)).pendingApprovals;
		expect(pending?.correlationId).toBe(waiting.pendingApprovals[0]?.correlationId);
		// While A lives, its workflow is its own: B answers 409.
		const notHere = await post(b.api, `/workflows/${id}/approve`, {
			correlationId: pending?.correlationId,
			decision: "allow",
		});
		expect(notHere).toMatchObject({ status: 409, body: { error: { code: "invalid_state" } } });
		// A's copy of the Trace (the waiting Task included) is in the database before the kill.
		// (Known gap: A's once-a-second upload was seen not to run for seconds while its workflow
		// waited; without this wait the kill can come before it, and B finds no unfinished Task.)
		const { sessionId } = await getWorkflow(a.api, id);
		const local = statSync(join(home, "sessions", sessionId, "trace.jsonl")).size;
		await eventually(async () => ((await tracedBytes(database, sessionId)) >= local ? true : undefined), 10_000);
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

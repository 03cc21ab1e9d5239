import type { OmniMessage } from "@omniloop/core";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { LISTEN_APPLICATION } from "../src/cluster/events/notifications.js";
import { waitingOnA } from "./cluster-workflow-set-up.js";
import { eventually, onCleanup } from "./harness.js";
import { getWorkflow, linesOf, post, type Served, until } from "./workflows-harness.js";

/**
 * Steer and abort posted on B for a Task that runs (or ran) on A: recorded in the database, so
 * neither a dead or paused A nor a lost notification loses them (docs/cluster.md, "Actions from
 * any process").
 */
describe("steer and abort from any process, whatever the holder's state", () => {
	it("steer on B while A (holding the Task) is killed -9: B, taking the Task over, delivers it once", async () => {
		const { provider, a, b, id, sessionId } = await waitingOnA();
		await a.kill();
		expect(await post(b.api, `/chat/sessions/${sessionId}/steer`, { text: "also this" })).toEqual({
			status: 200,
			body: { accepted: true },
		});
		await approveAndResumeOn(b, id);
		const done = await until(b.api, id, ["completed", "failed", "cancelled"]);
		expect([done.status, done.error]).toEqual(["completed", undefined]);
		expect(occurrences(provider.requests.at(-1)?.rawBody ?? "", "also this")).toBe(1);
		expect(steeringIn(await historyOn(b, sessionId))).toBe(1);
	});

	it("abort on B while A (holding the Task) is paused: B, taking the Task over, ends it aborted; the call never runs, A resumed does nothing", async () => {
		const { a, b, id, sessionId, root } = await waitingOnA();
		a.child.kill("SIGSTOP");
		onCleanup(() => {
			a.child.kill("SIGCONT");
		});
		expect(await post(b.api, `/chat/sessions/${sessionId}/abort`)).toEqual({ status: 200, body: { aborted: true } });
		await approveAndResumeOn(b, id);
		const done = await until(b.api, id, ["completed", "failed", "cancelled"]);
		expect([done.status, done.error]).toEqual(["cancelled", "its Task was aborted"]);
		a.child.kill("SIGCONT");
		// A, running again, finds its lease gone: it neither applies the abort again nor runs the call.
		expect((await getWorkflow(a.api, id)).status).toBe("cancelled");
		expect(linesOf(root, "ran.txt")).toEqual([]);
		const aborts = (await historyOn(b, sessionId)).filter((m) => m.type === "done" && m.reason === "user_abort");
		expect(aborts).toHaveLength(1);
	});

	it("steer on B while A's LISTEN connection is down (its notification lost): A applies it at its next lease renewal, once", {
		timeout: 60_000,
	}, async () => {
		const { provider, a, b, id, sessionId, database } = await waitingOnA();
		const admin = new pg.Client({ connectionString: database });
		await admin.connect();
		onCleanup(() => admin.end());
		const cut = () =>
			// Only this test's database: other test files run beside it on the same Postgres.
			admin.query(
				"select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = $1",
				[LISTEN_APPLICATION],
			);
		// Every process's LISTEN connection is cut, again and again, until the steer has committed.
		await cut();
		let posted = false;
		const cutting = (async () => {
			while (!posted) await cut();
		})();
		const steer = await post(b.api, `/chat/sessions/${sessionId}/steer`, { text: "also this" });
		posted = true;
		await cutting;
		expect(steer).toEqual({ status: 200, body: { accepted: true } });
		// Carried out by A (the record says when), before anyone lets the Task go on.
		await eventually(async () => {
			const { rows } = await admin.query(
				"select count(*)::int as n from session_actions where session_id = $1 and done_at is not null",
				[sessionId],
			);
			return (rows[0] as { n: number }).n === 1 ? true : undefined;
		});
		await approveAndResumeOn(b, id);
		const done = await until(a.api, id, ["completed", "failed", "cancelled"]);
		expect([done.status, done.error]).toEqual(["completed", undefined]);
		expect(occurrences(provider.requests.at(-1)?.rawBody ?? "", "also this")).toBe(1);
		expect(steeringIn(await historyOn(a, sessionId))).toBe(1);
	});
});

/** Two servers (homes of their own) on one database, leases of 1.5 s; a workflow's Task on A waits on a person. */
/** Approves the workflow's call on `server` once it may (409 while another live process holds it), then resumes it. */
async function approveAndResumeOn(server: Served, id: string): Promise<void> {
	const [pending] = (await getWorkflow(server.api, id)).pendingApprovals;
	await eventually(async () => {
		const r = await post(server.api, `/workflows/${id}/approve`, {
			correlationId: pending?.correlationId,
			decision: "allow",
		});
		return r.status === 409 ? undefined : r;
	}, 10_000);
	expect(await post(server.api, `/workflows/${id}/resume`)).toEqual({ status: 202, body: { status: "running" } });
}

async function historyOn(server: Served, sessionId: string): Promise<OmniMessage[]> {
	return ((await (await server.api(`/chat/sessions/${sessionId}`)).json()) as { messages: OmniMessage[] }).messages;
}

function steeringIn(messages: readonly OmniMessage[]): number {
	return messages.filter((m) => m.type === "user_text" && m.text.includes("also this")).length;
}

function occurrences(text: string, part: string): number {
	return text.split(part).length - 1;
}

import { createGate, ScriptedModel } from "@omniloop/core/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import {
	eventually,
	isType,
	messagesOf,
	sseReader,
	startServer,
	type TestServer,
	tempDirs,
	touchTool,
} from "./harness.js";
import { freshDatabase } from "./pg-database.js";

interface Pending {
	correlationId: string;
	name: string;
}

async function pendingOn(t: TestServer, id: string): Promise<Pending[]> {
	return ((await (await t.api(`/chat/sessions/${id}`)).json()) as { pendingConfirmations: Pending[] })
		.pendingConfirmations;
}

const answer = (t: TestServer, id: string, body: Record<string, unknown>) =>
	t.api(`/chat/sessions/${id}/ask-user-response`, { method: "POST", json: body });

/** Two servers on one database and one home: a Task runs on `a`, a person answers on `b`. */
async function twoServers(runs: string[], turns: ConstructorParameters<typeof ScriptedModel>[0]) {
	const database = await freshDatabase();
	const dirs = tempDirs();
	const a = await startServer({ database, model: new ScriptedModel(turns), tools: [touchTool(runs)] }, dirs);
	const b = await startServer({ database, model: new ScriptedModel([]), tools: [touchTool(runs)] }, dirs);
	return { a, b, database };
}

describe("a Task's controls across servers on one Postgres", () => {
	it("a call waiting on A is listed on B and runs once B allows it; a second answer is already_answered", async () => {
		const runs: string[] = [];
		const { a, b } = await twoServers(runs, [
			[{ type: "tool_call", name: "touch", args: { label: "x" } }],
			[{ type: "text", text: "done" }],
		]);
		const id = await a.createSession();
		const stream = sseReader(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		await stream.until(isType("confirmation_required"));
		const pending = await eventually(async () => (await pendingOn(b, id))[0]);
		expect(pending.name).toBe("touch");
		expect(runs).toEqual([]);
		expect((await answer(b, id, { correlationId: pending.correlationId, decision: "allow" })).status).toBe(200);
		const rest = messagesOf(await stream.until(isType("done")));
		expect(rest.find((m) => m.type === "tool_call_output")).toMatchObject({ status: "ok" });
		expect(runs).toEqual(["x"]);
		const again = await answer(b, id, { correlationId: pending.correlationId, decision: "deny" });
		expect(again.status).toBe(409);
		expect(((await again.json()) as { error: { code: string } }).error.code).toBe("already_answered");
		expect(await pendingOn(b, id)).toEqual([]);
	});

	it("a denial from B: the call never runs; an unknown id is 404 there", async () => {
		const runs: string[] = [];
		const { a, b } = await twoServers(runs, [
			[{ type: "tool_call", name: "touch", args: { label: "y" } }],
			[{ type: "text", text: "ok" }],
		]);
		const id = await a.createSession();
		const stream = sseReader(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		const pending = await eventually(async () => (await pendingOn(b, id))[0]);
		expect((await answer(b, id, { correlationId: "nope", decision: "allow" })).status).toBe(404);
		expect((await answer(b, id, { correlationId: pending.correlationId, decision: "deny" })).status).toBe(200);
		const messages = messagesOf(await stream.until(isType("done")));
		expect(messages.find((m) => m.type === "tool_call_output")).toMatchObject({ status: "denied" });
		expect(runs).toEqual([]);
	});

	it("abort on B ends the Task running on A (done user_abort); with no Task anywhere it aborts nothing", async () => {
		const runs: string[] = [];
		const { a, b } = await twoServers(runs, [[{ type: "tool_call", name: "touch", args: { label: "z" } }]]);
		const id = await a.createSession();
		const stream = sseReader(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		await eventually(async () => (await pendingOn(b, id))[0]);
		expect(await (await b.api(`/chat/sessions/${id}/abort`, { method: "POST" })).json()).toEqual({ aborted: true });
		expect(messagesOf(await stream.until(isType("done"))).at(-1)).toMatchObject({ reason: "user_abort" });
		expect(runs).toEqual([]);
		await eventually(async () => {
			const r = (await (await b.api(`/chat/sessions/${id}/abort`, { method: "POST" })).json()) as { aborted: boolean };
			return r.aborted ? undefined : true;
		});
	});

	it("a browser tab's GET /events on B sees a Task on A go busy, wait for approval and end; B lists it waiting_approval", async () => {
		const runs: string[] = [];
		const { a, b } = await twoServers(runs, [
			[{ type: "tool_call", name: "touch", args: { label: "t" } }],
			[{ type: "text", text: "ok" }],
		]);
		const id = await a.createSession();
		const tab = sseReader(await b.api("/events"));
		await tab.until((f) => f.data.includes('"sessions_snapshot"'));
		const isStatus = (status: string) => (f: { data: string }) =>
			f.data.includes('"session_status"') && f.data.includes(`"status":"${status}"`) && f.data.includes(id);
		const stream = sseReader(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		await tab.until(isStatus("waiting_approval"));
		const pending = await eventually(async () => (await pendingOn(b, id))[0]);
		// B's list and B's summary say the same as A's (they said "busy").
		const listed = (await (await b.api("/chat/sessions")).json()) as { sessions: { id: string; status: string }[] };
		expect(listed.sessions.find((s) => s.id === id)?.status).toBe("waiting_approval");
		const summary = (await (await b.api(`/chat/sessions/${id}`)).json()) as { session: { status: string } };
		expect(summary.session.status).toBe("waiting_approval");
		await answer(b, id, { correlationId: pending.correlationId, decision: "allow" });
		await stream.until(isType("done"));
		await tab.until(isStatus("idle"));
		await tab.close();
		expect(runs).toEqual(["t"]);
	});

	it("steer on B reaches the Task running on A; with no Task anywhere it is not accepted", async () => {
		const gate = createGate();
		const { a, b, database } = await twoServers(
			[],
			[
				[
					{ type: "gate", gate },
					{ type: "text", text: "one" },
				],
				[{ type: "text", text: "two" }],
			],
		);
		const id = await a.createSession();
		const idle = await b.api(`/chat/sessions/${id}/steer`, { method: "POST", json: { text: "x" } });
		expect(await idle.json()).toEqual({ accepted: false });
		const stream = sseReader(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		const steer = await b.api(`/chat/sessions/${id}/steer`, { method: "POST", json: { text: "also this" } });
		expect(await steer.json()).toEqual({ accepted: true });
		// The steer is recorded, then taken by A (on the notification): the model is let go once it was.
		const client = new pg.Client({ connectionString: database });
		await client.connect();
		await eventually(async () => {
			const { rows } = await client.query(
				"select count(*)::int as n from session_actions where session_id = $1 and done_at is not null",
				[id],
			);
			return (rows[0] as { n: number }).n === 1 ? true : undefined;
		});
		await client.end();
		gate.release();
		const messages = messagesOf(await stream.until(isType("done")));
		expect(messages.some((m) => m.type === "user_text" && m.text.includes("also this"))).toBe(true);
	});

	it("once the process running the Task has lost its lease (it died), B lists nothing pending and an answer is 409 interrupted", async () => {
		const runs: string[] = [];
		const { a, b, database } = await twoServers(runs, [[{ type: "tool_call", name: "touch", args: { label: "d" } }]]);
		const id = await a.createSession();
		const stream = sseReader(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		const pending = await eventually(async () => (await pendingOn(b, id))[0]);
		// As if A had died and its lease run out: the row says so (A itself goes on, unaware).
		const client = new pg.Client({ connectionString: database });
		await client.connect();
		await client.query("update session_leases set expires_at = 0");
		await client.end();
		expect(await pendingOn(b, id)).toEqual([]);
		const late = await answer(b, id, { correlationId: pending.correlationId, decision: "allow" });
		expect(late.status).toBe(409);
		expect(((await late.json()) as { error: { message: string } }).error.message).toContain("interrupted");
		expect(runs).toEqual([]);
		await stream.close();
	});
});

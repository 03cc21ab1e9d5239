import { FakeProviderServer, ScriptedModel } from "@omniloop/core/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import {
	callTouch,
	eventually,
	isType,
	messagesOf,
	onCleanup,
	readFrames,
	sseReader,
	startServer,
	tempDirs,
	touchTool,
	writeFakeModelConfig,
} from "./harness.js";
import { freshDatabase } from "./pg-database.js";

async function rowsOf(database: string, sessionId: string): Promise<Record<string, number>> {
	const client = new pg.Client({ connectionString: database });
	await client.connect();
	try {
		const count = async (table: string) =>
			Number(
				(await client.query<{ n: string }>(`select count(*) as n from ${table} where session_id = $1`, [sessionId]))
					.rows[0]?.n,
			);
		return { trace_chunks: await count("trace_chunks"), session_events: await count("session_events") };
	} finally {
		await client.end();
	}
}

describe("Sessions across servers on one Postgres", () => {
	it("deleting a Session on B stops its Task on A first: A's stream ends user_abort, the Session is gone on both, and nothing of it stays in the database", async () => {
		const database = await freshDatabase();
		const dirs = tempDirs();
		const runs: string[] = [];
		const touch = touchTool(runs);
		const a = await startServer({ database, model: new ScriptedModel([callTouch("x")]), tools: [touch] }, dirs);
		const b = await startServer(
			{ database, model: new ScriptedModel([]), tools: [touch] },
			{ ...tempDirs(), root: dirs.root },
		);
		const id = await a.createSession();
		const stream = sseReader(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		await stream.until(isType("confirmation_required"));

		expect((await b.api(`/chat/sessions/${id}`, { method: "DELETE" })).status).toBe(204);
		expect(messagesOf(await stream.until(isType("done"))).at(-1)).toMatchObject({ reason: "user_abort" });
		expect(runs).toEqual([]);
		await eventually(async () => ((await a.api(`/chat/sessions/${id}`)).status === 404 ? true : undefined));
		expect((await b.api(`/chat/sessions/${id}`)).status).toBe(404);
		// Whatever A wrote while stopping came before the deletion, not after it: once A has shut
		// down (its timers, uploads and event writer done), nothing of the Session is in the database.
		await a.server.close();
		expect(await rowsOf(database, id)).toEqual({ trace_chunks: 0, session_events: 0 });
	});

	it("a credential stored on B is the one a Session on A sends at its next request (the value is read from the store, never sent between processes)", async () => {
		const provider = await FakeProviderServer.start();
		onCleanup(() => provider.close());
		const dirs = tempDirs();
		writeFakeModelConfig(dirs.root, provider.url);
		const database = await freshDatabase();
		const a = await startServer({ database, env: { FAKE_KEY: "old" } }, dirs);
		const b = await startServer({ database, env: { FAKE_KEY: "old" } }, { ...tempDirs(), root: dirs.root });
		const id = await a.createSession();
		const events = sseReader(await a.api("/events"));
		await events.until((f) => f.data.includes('"sessions_snapshot"'));
		expect((await b.api("/credentials/FAKE_KEY", { method: "PUT", json: { value: "new" } })).status).toBe(204);
		const frames = await events.until((f) => f.data.includes('"credential_updated"'));
		expect(frames.at(-1)?.data).not.toContain("new");
		await events.close();

		provider.enqueue({ text: "hello" });
		const reply = messagesOf(
			(await readFrames(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "hi" } }))).frames,
		);
		expect(reply.find((m) => m.type === "assistant_text")).toMatchObject({ text: "hello" });
		expect(provider.requests.at(-1)?.headers.authorization).toBe("Bearer new");
	});
});

import type { OmniMessage } from "@omniloop/core";
import { createGate, ScriptedModel } from "@omniloop/core/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { isType, messagesOf, sseReader, startServer, tempDirs } from "./harness.js";
import { freshDatabase } from "./pg-database.js";

/** Ends the backends of these connections, as a Postgres restart or a failover would. */
async function terminate(database: string, applications: string[]): Promise<number> {
	const client = new pg.Client({ connectionString: database });
	await client.connect();
	try {
		const result = await client.query(
			"select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = any($1)",
			[applications],
		);
		return result.rowCount ?? 0;
	} finally {
		await client.end();
	}
}

describe("servers on one Postgres whose connections drop", () => {
	it("a viewer on B gets every seq of a Task on A once, in order, across the loss of both LISTEN connections and A's event writer", async () => {
		const gate = createGate();
		const database = await freshDatabase();
		const dirs = tempDirs();
		const model = new ScriptedModel([
			[
				{ type: "text", text: "before " },
				{ type: "gate", gate },
				{ type: "text", text: "after" },
			],
		]);
		const a = await startServer({ database, model }, dirs);
		const b = await startServer({ database, model: new ScriptedModel([]) }, dirs);
		const id = await a.createSession();
		const viewer = sseReader(await b.api(`/chat/sessions/${id}/events?after=0`));
		const onA = sseReader(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		const early = messagesOf(await viewer.until((f) => f.data.includes('"before "')));
		expect(await terminate(database, ["omniloop-listen", "omniloop-event-writer"])).toBe(3);
		gate.release();
		const fromA = messagesOf(await onA.until(isType("done")));
		const late = messagesOf(await viewer.until(isType("done")));
		await viewer.close();
		const all: OmniMessage[] = [...early, ...late];
		// What B had before the drop, then the rest: every seq A streamed, each once, in order.
		expect(all.map((m) => m.seq)).toEqual(fromA.map((m) => m.seq));
		expect(all.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
	});
});

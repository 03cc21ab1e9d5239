import type { OmniMessage } from "@omniloop/core";
import { createGate, type Gate, ScriptedModel, type ScriptedStep } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { isType, messagesOf, type SseFrame, sseReader, startServer, type TestServer, tempDirs } from "./harness.js";
import { freshDatabase } from "./pg-database.js";

const has = (text: string) => (frame: SseFrame) => frame.data.includes(text);

describe("replay after Last-Event-ID on Postgres", () => {
	it("joins during a running Task, on the process running it and on another, each get exactly the seqs after their id", async () => {
		const database = await freshDatabase();
		const dirs = tempDirs();
		const rounds = 12;
		const gates: Gate[] = Array.from({ length: rounds }, () => createGate());
		// One delta a round, then a wait: a reader that joins at the wait is level with the Task.
		const steps: ScriptedStep[] = gates.flatMap((gate, i) => [
			{ type: "text_deltas", chunks: [`m${i}. `] },
			{ type: "gate", gate },
		]);
		const a = await startServer(
			{ database, model: new ScriptedModel([[...steps, { type: "text", text: "end" }]]) },
			dirs,
		);
		const b = await startServer({ database, model: new ScriptedModel([]) }, dirs);
		const id = await a.createSession();
		const live = sseReader(await a.api(`/chat/sessions/${id}/events`));
		await a.api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			json: { text: "go" },
			headers: { prefer: "respond-async" },
		});

		const liveMessages: OmniMessage[] = [];
		const joins: { from: number; got: OmniMessage[] }[] = [];
		for (let i = 0; i < rounds; i++) {
			liveMessages.push(...messagesOf(await live.until(has(`m${i}. `))));
			const from = (liveMessages.at(-1) as OmniMessage).seq;
			// Both stream routes, on both processes (the tail's cursor on each lags the reader's id).
			const server: TestServer = i % 2 === 0 ? b : a;
			const path = i % 4 < 2 ? `/chat/sessions/${id}/events` : `/events?session=${id}`;
			const joined = sseReader(await server.api(path, { headers: { "last-event-id": String(from) } }));
			(gates[i] as Gate).release();
			const next = i + 1 < rounds ? `m${i + 1}. ` : '"type":"done"';
			joins.push({ from, got: messagesOf(await joined.until(has(next))) });
			await joined.close();
		}
		liveMessages.push(...messagesOf(await live.until(isType("done"))));
		await live.close();

		// Every join got what live readers got after its id (nothing at or below it, no gap), up to where it stopped.
		const expected = joins.map(({ from, got }) => {
			const upTo = (got.at(-1) as OmniMessage).seq;
			return { from, seqs: liveMessages.filter((m) => m.seq > from && m.seq <= upTo).map((m) => m.seq) };
		});
		expect(joins.map(({ from, got }) => ({ from, seqs: got.map((m) => m.seq) }))).toEqual(expected);
	});
});

import { isPartialMessage, type OmniMessage } from "@omniloop/core";
import { createGate, ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { messagesOf, readFrames, startServer, type TestServer } from "./harness.js";

const words = Array.from({ length: 40 }, (_, i) => `w${i} `);

async function history(t: TestServer, id: string, after = 0): Promise<OmniMessage[]> {
	const body = (await (await t.api(`/chat/sessions/${id}?after=${after}`)).json()) as { messages: OmniMessage[] };
	return body.messages;
}

describe("GET /chat/sessions/:id/events replay", () => {
	it("a reader that drops mid-Task and resumes with Last-Event-ID misses nothing and gets nothing twice", async () => {
		const slowModel = new ScriptedModel(
			[
				[
					{ type: "delay", ms: 5 },
					...words.map((w) => ({ type: "text_deltas" as const, chunks: [w] })),
					{ type: "text", text: "end" },
				],
			],
			{ stepDelayMs: 2 },
		);
		const t = await startServer({ model: slowModel });
		const id = await t.createSession();
		const live = await t.api(`/chat/sessions/${id}/events`);
		await t.api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			json: { text: "go" },
			headers: { prefer: "respond-async" },
		});
		let seen = 0;
		const first = await readFrames(live, () => ++seen >= 10);
		const firstPart = messagesOf(first.frames);
		const lastId = first.frames.at(-1)?.id as string;
		const resumed = await t.api(`/chat/sessions/${id}/events`, { headers: { "last-event-id": lastId } });
		const rest = messagesOf((await readFrames(resumed, (f) => f.data.includes('"done"'))).frames);
		const all = [...firstPart, ...rest];
		const seqs = all.map((m) => m.seq);
		expect(new Set(seqs).size).toBe(seqs.length);
		// No gap: every seq from the first to done is there, partials included (the Task is in the window).
		expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => (seqs[0] as number) + i));
		// And the non-partials are exactly the history the Trace holds.
		const stored = await history(t, id);
		expect(all.filter((m) => !isPartialMessage(m)).map((m) => m.seq)).toEqual(
			stored.filter((m) => m.seq >= (seqs[0] as number)).map((m) => m.seq),
		);
	});

	it("?after= replays every non-partial after that seq from the Trace, then goes live across Tasks", async () => {
		const gate = createGate();
		const model = new ScriptedModel([
			[{ type: "text", text: "one two", chunks: ["one", " two"] }],
			[
				{ type: "gate", gate },
				{ type: "text", text: "three" },
			],
		]);
		const t = await startServer({ model });
		const id = await t.createSession();
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "a" } }));
		const full = await history(t, id);
		expect(full.some(isPartialMessage)).toBe(false);
		const cut = (full[2] as OmniMessage).seq;
		const events = await t.api(`/chat/sessions/${id}/events?after=${cut}`);
		const second = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "b" } });
		gate.release();
		await readFrames(second);
		const firstDone = full.find((m) => m.type === "done")?.seq as number;
		const isSecondDone = (f: { id?: string | undefined; data: string }) =>
			f.data.includes('"type":"done"') && Number(f.id) > firstDone;
		const got = messagesOf((await readFrames(events, isSecondDone)).frames);
		const after = await history(t, id, cut);
		const replayed = got.filter((m) => !isPartialMessage(m)).map((m) => m.seq);
		expect(replayed).toEqual(after.map((m) => m.seq));
	});

	it("GET /events?session= resumes the watched Session's messages from Last-Event-ID after its snapshot", async () => {
		const model = new ScriptedModel([[{ type: "text", text: "first" }]]);
		const t = await startServer({ model });
		const id = await t.createSession();
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "a" } }));
		const full = await history(t, id);
		const from = (full[1] as OmniMessage).seq;
		const events = await t.api(`/events?session=${id}`, { headers: { "last-event-id": String(from) } });
		let count = 0;
		const frames = (await readFrames(events, () => ++count >= full.length - 1)).frames;
		expect(JSON.parse(frames[0]?.data as string)).toMatchObject({ type: "sessions_snapshot" });
		expect(frames[0]?.id).toBeUndefined();
		expect(messagesOf(frames)).toEqual(full.slice(2));
	});

	it("after a restart on the same home, replay comes from the Trace files alone", async () => {
		const model = new ScriptedModel([[{ type: "text", text: "persisted" }]]);
		const first = await startServer({ model });
		const id = await first.createSession();
		await readFrames(await first.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "a" } }));
		const before = await history(first, id);
		await first.server.close();
		const second = await startServer({ model }, { home: first.home, root: first.root, base: "" });
		const events = await second.api(`/chat/sessions/${id}/events?after=0`);
		let count = 0;
		const frames = (await readFrames(events, () => ++count >= before.length)).frames;
		expect(messagesOf(frames)).toEqual(before);
	});
});

import { createGate, ScriptedModel, textTaskTypes } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { eventually, messagesOf, readFrames, startServer } from "./harness.js";

describe("POST /chat/sessions/:id/messages", () => {
	it("streams the Task as SSE: id = seq, one OmniMessage per data, ending after done", async () => {
		const model = new ScriptedModel([[{ type: "text", text: "hello there", chunks: ["hello", " there"] }]]);
		const t = await startServer({ model });
		const id = await t.createSession();
		const response = await t.api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			json: { text: "hi", thinkingLevel: "high" },
		});
		expect(response.status).toBe(200);
		expect(response.headers.get("content-type")).toContain("text/event-stream");
		const { frames } = await readFrames(response);
		const messages = messagesOf(frames);
		expect(frames.every((f) => f.id === String((JSON.parse(f.data) as { seq: number }).seq))).toBe(true);
		expect(messages.map((m) => m.type)).toEqual(textTaskTypes(2));
		expect(model.requests[0]?.thinkingLevel).toBe("high");
		const seqs = messages.map((m) => m.seq);
		expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
		expect(new Set(seqs).size).toBe(seqs.length);
	});

	it("answers 409 session_busy to a second Task and leaves the first unharmed", async () => {
		const gate = createGate();
		const model = new ScriptedModel([
			[
				{ type: "gate", gate },
				{ type: "text", text: "first done" },
			],
		]);
		const t = await startServer({ model });
		const id = await t.createSession();
		const first = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "one" } });
		const second = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "two" } });
		expect(second.status).toBe(409);
		expect(await second.json()).toEqual({ error: { code: "session_busy", message: expect.stringContaining(id) } });
		const compact = await t.api(`/chat/sessions/${id}/compact`, { method: "POST" });
		expect(compact.status).toBe(409);
		gate.release();
		const messages = messagesOf((await readFrames(first)).frames);
		expect(messages.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
		expect(messages.some((m) => m.type === "assistant_text" && m.text === "first done")).toBe(true);
	});

	it("a client that disconnects does not abort the Task", async () => {
		const gate = createGate();
		const model = new ScriptedModel([
			[
				{ type: "text", text: "before" },
				{ type: "gate", gate },
				{ type: "text", text: "after" },
			],
		]);
		const t = await startServer({ model });
		const id = await t.createSession();
		const response = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } });
		await readFrames(response, (f) => f.data.includes('"assistant_text"'));
		gate.release();
		const history = await eventually(async () => {
			const body = (await (await t.api(`/chat/sessions/${id}`)).json()) as {
				messages: { type: string; reason?: string; text?: string }[];
			};
			return body.messages.some((m) => m.type === "done") ? body.messages : undefined;
		});
		expect(history.find((m) => m.type === "done")).toMatchObject({ reason: "model_stop" });
		expect(history.filter((m) => m.type === "assistant_text").map((m) => m.text)).toEqual(["before", "after"]);
	});

	it("with Prefer: respond-async answers 202 and the Task is watched through events", async () => {
		const model = new ScriptedModel([[{ type: "text", text: "async answer" }]]);
		const t = await startServer({ model });
		const id = await t.createSession();
		const events = await t.api(`/chat/sessions/${id}/events`);
		const response = await t.api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			json: { messages: [{ type: "user_text", text: "go" }] },
			headers: { prefer: "respond-async" },
		});
		expect(response.status).toBe(202);
		const { frames } = await readFrames(events, (f) => f.data.includes('"done"'));
		expect(messagesOf(frames).map((m) => m.type)).toContain("assistant_text");
	});

	it("steer reaches the running Task; abort ends it with done user_abort; neither applies when idle", async () => {
		const gate = createGate();
		const model = new ScriptedModel([
			[
				{ type: "gate", gate },
				{ type: "text", text: "one" },
			],
			[{ type: "text", text: "two" }],
		]);
		const t = await startServer({ model });
		const id = await t.createSession();
		const idleSteer = await t.api(`/chat/sessions/${id}/steer`, { method: "POST", json: { text: "x" } });
		expect(await idleSteer.json()).toEqual({ accepted: false });
		const stream = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } });
		const steer = await t.api(`/chat/sessions/${id}/steer`, { method: "POST", json: { text: "also this" } });
		expect(await steer.json()).toEqual({ accepted: true });
		gate.release();
		const messages = messagesOf((await readFrames(stream)).frames);
		expect(messages.some((m) => m.type === "user_text" && m.text.includes("also this"))).toBe(true);
		expect(model.requests).toHaveLength(2);

		const gate2 = createGate();
		model.push([
			{ type: "gate", gate: gate2 },
			{ type: "text", text: "never" },
		]);
		const second = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "again" } });
		const abort = await t.api(`/chat/sessions/${id}/abort`, { method: "POST" });
		expect(await abort.json()).toEqual({ aborted: true });
		const ended = messagesOf((await readFrames(second)).frames);
		expect(ended.slice(-2).map((m) => m.type)).toEqual(["abort", "done"]);
		expect(ended.at(-1)).toMatchObject({ reason: "user_abort" });
		const idleAbort = await t.api(`/chat/sessions/${id}/abort`, { method: "POST" });
		expect(await idleAbort.json()).toEqual({ aborted: false });
	});
});

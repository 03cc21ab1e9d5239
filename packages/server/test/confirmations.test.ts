import type { OmniMessage } from "@omniloop/core";
import { ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import {
	callTouch,
	eventually,
	isType,
	messagesOf,
	readFrames,
	sseReader,
	startServer,
	type TestServer,
	tempDirs,
	touchTool,
} from "./harness.js";

interface Pending {
	correlationId: string;
	callId: string;
	name: string;
	arguments: string;
	requestedAt: number;
}

async function pendingOf(t: TestServer, id: string): Promise<Pending[]> {
	const body = (await (await t.api(`/chat/sessions/${id}`)).json()) as { pendingConfirmations: Pending[] };
	return body.pendingConfirmations;
}

async function waitForPending(t: TestServer, id: string): Promise<Pending> {
	return eventually(async () => (await pendingOf(t, id))[0]);
}

function answer(t: TestServer, id: string, body: Record<string, unknown>) {
	return t.api(`/chat/sessions/${id}/ask-user-response`, { method: "POST", json: body });
}

describe("confirmation over HTTP", () => {
	it("allow: the call waits, is listed as pending with its status waiting_approval, then runs", async () => {
		const runs: string[] = [];
		const model = new ScriptedModel([callTouch("a"), [{ type: "text", text: "ok" }]]);
		const t = await startServer({ model, tools: [touchTool(runs)] });
		const id = await t.createSession();
		const stream = sseReader(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		const asked = messagesOf(await stream.until(isType("confirmation_required"))).at(-1);
		const pending = await waitForPending(t, id);
		expect(pending).toMatchObject({ name: "touch", arguments: '{"label":"a"}' });
		expect(asked).toMatchObject({
			type: "confirmation_required",
			correlationId: pending.correlationId,
			callId: pending.callId,
		});
		expect(typeof pending.requestedAt).toBe("number");
		const list = (await (await t.api("/chat/sessions")).json()) as { sessions: { id: string; status: string }[] };
		expect(list.sessions.find((s) => s.id === id)?.status).toBe("waiting_approval");
		expect(runs).toEqual([]);

		const ok = await answer(t, id, { correlationId: pending.correlationId, decision: "allow" });
		expect(await ok.json()).toEqual({ ok: true });
		const messages = messagesOf(await stream.rest());
		expect(messages.find((m) => m.type === "approval_decision")).toMatchObject({
			decision: "allow",
			by: "user",
			correlationId: pending.correlationId,
		});
		expect(messages.find((m) => m.type === "tool_call_output")).toMatchObject({ status: "ok", output: "touched a" });
		expect(runs).toEqual(["a"]);
		expect(await pendingOf(t, id)).toEqual([]);

		const again = await answer(t, id, { correlationId: pending.correlationId, decision: "deny" });
		expect(again.status).toBe(409);
		const error = ((await again.json()) as { error: { code: string; message: string } }).error;
		expect(error.code).toBe("already_answered");
		expect(error.message).toContain("allow");
	});

	it("deny: the call gets a denied output and never runs", async () => {
		const runs: string[] = [];
		const model = new ScriptedModel([callTouch("b"), [{ type: "text", text: "understood" }]]);
		const t = await startServer({ model, tools: [touchTool(runs)] });
		const id = await t.createSession();
		const stream = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } });
		const pending = await waitForPending(t, id);
		await answer(t, id, { correlationId: pending.correlationId, decision: "deny" });
		const messages = messagesOf((await readFrames(stream)).frames);
		expect(messages.find((m) => m.type === "tool_call_output")).toMatchObject({ status: "denied" });
		expect(runs).toEqual([]);
	});

	it("always: the tool is allowed for the rest of the Session without asking again", async () => {
		const runs: string[] = [];
		const model = new ScriptedModel([callTouch("1"), callTouch("2"), [{ type: "text", text: "done" }]]);
		const t = await startServer({ model, tools: [touchTool(runs)] });
		const id = await t.createSession();
		const stream = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } });
		const pending = await waitForPending(t, id);
		await answer(t, id, { correlationId: pending.correlationId, decision: "allow", always: true });
		const messages = messagesOf((await readFrames(stream)).frames);
		expect(runs).toEqual(["1", "2"]);
		expect(
			messages.filter((m) => m.type === "approval_decision").map((m) => (m as { decision: string }).decision),
		).toEqual(["allow", "allow"]);
	});

	it("always holds after a restart: the next server on the home runs the tool without asking", async () => {
		const runs: string[] = [];
		const dirs = tempDirs();
		const first = await startServer(
			{ model: new ScriptedModel([callTouch("1"), [{ type: "text", text: "done" }]]), tools: [touchTool(runs)] },
			dirs,
		);
		const id = await first.createSession();
		const stream = await first.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } });
		const pending = await waitForPending(first, id);
		await answer(first, id, { correlationId: pending.correlationId, decision: "allow", always: true });
		await readFrames(stream);
		await first.server.close();

		const model = new ScriptedModel([callTouch("2"), [{ type: "text", text: "again" }]]);
		const second = await startServer({ model, tools: [touchTool(runs)] }, dirs);
		const again = await second.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "more" } });
		const messages = messagesOf((await readFrames(again)).frames);
		expect(runs).toEqual(["1", "2"]);
		expect(messages.find((m) => m.type === "approval_decision")).toMatchObject({ decision: "allow", by: "user" });
	});

	it("404 for an unknown correlation id, 400 naming the field for a bad body", async () => {
		const t = await startServer({ model: new ScriptedModel([]) });
		const id = await t.createSession();
		const unknown = await answer(t, id, { correlationId: "nope", decision: "allow" });
		expect(unknown.status).toBe(404);
		expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("not_found");
		const bad = await answer(t, id, { correlationId: "x", decision: "maybe" });
		expect(bad.status).toBe(400);
		expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/^decision:/);
	});

	it("an answer from another viewer after the first one disconnected still reaches the Task", async () => {
		const runs: string[] = [];
		const model = new ScriptedModel([callTouch("c"), [{ type: "text", text: "fine" }]]);
		const t = await startServer({ model, tools: [touchTool(runs)] });
		const id = await t.createSession();
		const stream = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } });
		await readFrames(stream, (f) => f.data.includes('"tool_call"'));
		const pending = await waitForPending(t, id);
		const events = await t.api(`/chat/sessions/${id}/events`);
		await answer(t, id, { correlationId: pending.correlationId, decision: "allow" });
		const { frames } = await readFrames(events, (f) => f.data.includes('"done"'));
		const messages: OmniMessage[] = messagesOf(frames);
		expect(messages.find((m) => m.type === "tool_call_output")).toMatchObject({ status: "ok" });
		expect(runs).toEqual(["c"]);
	});

	it("an abort while waiting ends the Task and the confirmation leaves the pending list", async () => {
		const model = new ScriptedModel([callTouch("d")]);
		const t = await startServer({ model, tools: [touchTool([])] });
		const id = await t.createSession();
		const stream = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } });
		const pending = await waitForPending(t, id);
		await t.api(`/chat/sessions/${id}/abort`, { method: "POST" });
		const messages = messagesOf((await readFrames(stream)).frames);
		expect(messages.at(-1)).toMatchObject({ type: "done", reason: "user_abort" });
		expect(await pendingOf(t, id)).toEqual([]);
		const late = await answer(t, id, { correlationId: pending.correlationId, decision: "allow" });
		expect(late.status).toBe(409);
	});
});

import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
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

/** Core as another host runs it: built by the cli/server global setup. */
const coreDist = fileURLToPath(new URL("../../core/dist", import.meta.url));

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

/** The approval events of a stream, as "asked:<tool>" and "decided:<decision>:<by>". */
function approvalsOf(messages: readonly OmniMessage[]): string[] {
	return messages.flatMap((m) => {
		if (m.type === "confirmation_required") return [`asked:${m.name}`];
		if (m.type === "approval_decision") return [`decided:${m.decision}:${m.by}`];
		return [];
	});
}

/** Grants `tool` "always" for a Session from a separate process, as another host on the home would. */
async function grantInAnotherProcess(home: string, sessionId: string, tool: string): Promise<void> {
	const module = pathToFileURL(join(coreDist, "session-store", "always-allowed.js")).href;
	const script = `const { AlwaysAllowed } = await import(${JSON.stringify(module)});
new AlwaysAllowed(process.argv[1], process.argv[2]).add(process.argv[3]);`;
	await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script, home, sessionId, tool]);
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

	it("always: the tool is allowed for the rest of the Session, and its next call is not announced", async () => {
		const runs: string[] = [];
		const model = new ScriptedModel([callTouch("1"), callTouch("2"), [{ type: "text", text: "done" }]]);
		const t = await startServer({ model, tools: [touchTool(runs)] });
		const id = await t.createSession();
		const stream = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } });
		const pending = await waitForPending(t, id);
		await answer(t, id, { correlationId: pending.correlationId, decision: "allow", always: true });
		const messages = messagesOf((await readFrames(stream)).frames);
		expect(runs).toEqual(["1", "2"]);
		// One question (the first call); the second is decided by the grant before anything is announced.
		expect(approvalsOf(messages)).toEqual(["asked:touch", "decided:allow:user", "decided:allow:always"]);
		expect(await pendingOf(t, id)).toEqual([]);
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
		expect(approvalsOf(messages)).toEqual(["decided:allow:always"]);
	});

	it("a grant another host makes while the Task runs holds at the Task's next call: it is not announced", async () => {
		const runs: string[] = [];
		const model = new ScriptedModel([callTouch("1"), callTouch("2"), [{ type: "text", text: "done" }]]);
		const dirs = tempDirs();
		const t = await startServer({ model, tools: [touchTool(runs)] }, dirs);
		const id = await t.createSession();
		const stream = sseReader(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		await stream.until(isType("confirmation_required"));
		const pending = await waitForPending(t, id);
		// Another host on the same home (a CLI resuming this Session) answers "always" for touch:
		// in a process of its own, through its own AlwaysAllowed.
		await grantInAnotherProcess(dirs.home, id, "touch");
		// This viewer's answer is a plain allow, once.
		await answer(t, id, { correlationId: pending.correlationId, decision: "allow" });
		const messages = messagesOf(await stream.rest());
		expect(runs).toEqual(["1", "2"]);
		expect(approvalsOf(messages)).toEqual(["decided:allow:user", "decided:allow:always"]);
		// Seen by every viewer the same way: the Session's history has one question only.
		const history = (await (await t.api(`/chat/sessions/${id}`)).json()) as { messages: OmniMessage[] };
		expect(approvalsOf(history.messages)).toEqual(["asked:touch", "decided:allow:user", "decided:allow:always"]);
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

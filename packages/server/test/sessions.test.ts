import { existsSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { createGate, fail, ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { isType, messagesOf, readFrames, sseReader, startServer } from "./harness.js";

type Json = Record<string, unknown>;

describe("the Session routes", () => {
	it("create, list, read and delete; unknown ids are 404", async () => {
		const model = new ScriptedModel([
			[
				{ type: "text", text: "hi" },
				{ type: "usage", usage: { input: 7, output: 3 } },
			],
		]);
		const t = await startServer({ model });
		const created = await t.api("/chat/sessions", { method: "POST", json: {} });
		expect(created.status).toBe(201);
		const session = (await created.json()) as Json;
		expect(session).toEqual({
			id: expect.any(String),
			agentId: "default_agent",
			model: "scripted:model",
			workspaceDir: t.root,
			createdAt: expect.any(Number),
		});
		const id = session.id as string;
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "hello" } }));
		const list = (await (await t.api("/chat/sessions")).json()) as { sessions: Json[] };
		expect(list.sessions).toEqual([
			{
				id,
				// Named by its first prompt until a title is generated.
				title: "hello",
				agentId: "default_agent",
				model: "scripted:model",
				workspaceDir: t.root,
				status: "idle",
				lock: null,
				createdAt: session.createdAt,
				updatedAt: expect.any(Number),
				usage: { input: 7, output: 3, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 10 },
			},
		]);
		const read = (await (await t.api(`/chat/sessions/${id}?limit=2`)).json()) as { messages: OmniMessage[] };
		expect(read.messages.map((m) => m.type)).toEqual(["user_text", "request_begin"]);
		expect((await t.api(`/chat/sessions/${id}`, { method: "DELETE" })).status).toBe(204);
		expect(existsSync(join(t.home, "sessions", id))).toBe(false);
		for (const [method, path] of [
			["GET", `/chat/sessions/${id}`],
			["DELETE", `/chat/sessions/${id}`],
			["POST", `/chat/sessions/${id}/abort`],
			["GET", `/chat/sessions/${id}/events`],
			["GET", "/chat/sessions/nope/compactability"],
		] as const) {
			const response = await t.api(path, { method });
			expect(response.status, `${method} ${path}`).toBe(404);
			expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
		}
		// Usage is billing history: it outlives its Session.
		const rows = (await (await t.api(`/usage/rows?sessionId=${id}`)).json()) as { rows: Json[] };
		expect(rows.rows).toHaveLength(1);
		const unknownAgent = await t.api("/chat/sessions", { method: "POST", json: { agentId: "ghost" } });
		expect(unknownAgent.status).toBe(404);
	});

	it("DELETE aborts a running Task and ends the streams of its readers", async () => {
		const gate = createGate();
		const model = new ScriptedModel([
			[
				{ type: "gate", gate },
				{ type: "text", text: "never" },
			],
		]);
		const t = await startServer({ model });
		const id = await t.createSession();
		const stream = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } });
		const watcher = await t.api(`/chat/sessions/${id}/events`);
		expect((await t.api(`/chat/sessions/${id}`, { method: "DELETE" })).status).toBe(204);
		const messages = messagesOf((await readFrames(stream)).frames);
		expect(messages.at(-1)).toMatchObject({ type: "done", reason: "user_abort" });
		// A reader of the deleted Session's events sees the end of its Task, then its stream ends.
		const watched = messagesOf((await readFrames(watcher)).frames);
		expect(watched.at(-1)).toMatchObject({ type: "done" });
	});

	it("titles, compactability and a manual compaction streamed as SSE", async () => {
		const long = "a long answer ".repeat(40);
		const model = new ScriptedModel([
			[{ type: "text", text: long }],
			[{ type: "text", text: "Greeting chat" }],
			[{ type: "text", text: "[summary]They said hi.[/summary]" }],
		]);
		const t = await startServer({ model });
		const id = await t.createSession();
		const compactability = async () =>
			((await (await t.api(`/chat/sessions/${id}/compactability`)).json()) as Json).compactability;
		expect(await compactability()).toBe("empty");
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "hi" } }));
		expect(await compactability()).toBe("ok");
		const titleNow = async () =>
			((await (await t.api("/chat/sessions")).json()) as { sessions: Json[] }).sessions[0]?.title;
		// Until a title is generated, the first prompt names the Session.
		expect(await titleNow()).toBe("hi");
		const title = await t.api(`/chat/sessions/${id}/title`, { method: "POST" });
		expect(await title.json()).toEqual({ title: "Greeting chat" });
		const list = (await (await t.api("/chat/sessions")).json()) as { sessions: Json[] };
		expect(list.sessions[0]?.title).toBe("Greeting chat");
		const compact = await t.api(`/chat/sessions/${id}/compact`, { method: "POST" });
		expect(compact.headers.get("content-type")).toContain("text/event-stream");
		const messages = messagesOf((await readFrames(compact)).frames);
		expect(messages[0]).toMatchObject({ type: "compaction_begin", reason: "manual" });
		expect(messages.find((m) => m.type === "compaction_end")).toMatchObject({ status: "ok" });
		expect(await compactability()).toBe("just_compacted");
	});

	it("a title the model fails to write is a 502 model_failed saying how, its message redacted; not a 500", async () => {
		const key = "sk-title-secret-123456";
		const model = new ScriptedModel([
			[{ type: "text", text: "ok" }],
			[fail({ class: "auth", message: `invalid x-api-key ${key}`, status: 401 })],
			[fail({ class: "timeout", message: "socket hang up" }, "throw")],
		]);
		const t = await startServer({ model, env: { ANTHROPIC_API_KEY: key } });
		const id = await t.createSession();
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "hello" } }));
		for (const expected of [
			"the model failed (auth): invalid x-api-key [redacted]",
			"the model failed (timeout): socket hang up",
		]) {
			const title = await t.api(`/chat/sessions/${id}/title`, { method: "POST" });
			expect(title.status).toBe(502);
			expect(await title.json()).toEqual({ error: { code: "model_failed", message: expected } });
		}
	});

	it("PATCH renames a Session (trimmed, 1 to 200 characters); a bad title is a 400 naming the field", async () => {
		const t = await startServer({ model: new ScriptedModel([[{ type: "text", text: "hi" }]]) });
		const id = await t.createSession();
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "hello" } }));
		const rename = (json: unknown) => t.api(`/chat/sessions/${id}`, { method: "PATCH", json });
		const renamed = await rename({ title: "  Trip to Lisbon " });
		expect(renamed.status).toBe(200);
		expect(await renamed.json()).toMatchObject({ id, title: "Trip to Lisbon" });
		const titleNow = async () =>
			((await (await t.api("/chat/sessions")).json()) as { sessions: Json[] }).sessions[0]?.title;
		expect(await titleNow()).toBe("Trip to Lisbon");
		for (const [body, message] of [
			[{ title: "   " }, "title: empty once trimmed; give 1 to 200 characters"],
			[{ title: "x".repeat(201) }, "title: longer than 200 characters once trimmed"],
			[{ title: 7 }, "title: Invalid input: expected string, received number"],
			[{}, "body: give title, model or both"],
			[{ title: "ok", colour: "red" }, 'body: Unrecognized key: "colour"'],
		] as const) {
			const refused = await rename(body);
			expect(refused.status).toBe(400);
			expect(await refused.json()).toEqual({ error: { code: "invalid_body", message } });
		}
		expect(await titleNow()).toBe("Trip to Lisbon");
		expect((await t.api("/chat/sessions/nope", { method: "PATCH", json: { title: "x" } })).status).toBe(404);
		expect((await rename({ title: "x".repeat(200) })).status).toBe(200);
		expect(await titleNow()).toBe("x".repeat(200));
	});

	it("GET /chat/sessions?q= finds Sessions by title and by the text of their messages, with a snippet", async () => {
		const model = new ScriptedModel([
			[{ type: "text", text: "Pack a jacket for the Lisbon evenings." }],
			[{ type: "text", text: "Nothing about travel here." }],
		]);
		const t = await startServer({ model });
		const trip = await t.createSession();
		await readFrames(
			await t.api(`/chat/sessions/${trip}/messages`, { method: "POST", json: { text: "what to pack" } }),
		);
		const other = await t.createSession();
		await readFrames(
			await t.api(`/chat/sessions/${other}/messages`, { method: "POST", json: { text: "a lisbon list" } }),
		);
		const search = async (q: string) =>
			(await (await t.api(`/chat/sessions?q=${encodeURIComponent(q)}`)).json()) as Json;
		const byText = await search("LISBON  evenings");
		expect(byText).toMatchObject({ textsScanned: 2, scanLimit: 200 });
		expect(byText.sessions).toEqual([
			expect.objectContaining({
				id: trip,
				title: "what to pack",
				match: { in: "text", seq: expect.any(Number), snippet: "Pack a jacket for the Lisbon evenings." },
			}),
		]);
		// A title match comes without reading the Session's messages.
		expect(((await search("lisbon")).sessions as Json[]).map((s) => [s.id, (s.match as Json).in])).toEqual([
			[other, "title"],
			[trip, "text"],
		]);
		expect((await search("nowhere at all")).sessions).toEqual([]);
		const tooLong = await t.api(`/chat/sessions?q=${"x".repeat(201)}`);
		expect(tooLong.status).toBe(400);
		expect(await tooLong.json()).toEqual({ error: { code: "invalid_body", message: "q: longer than 200 characters" } });
	});

	it("retry-now ends a reconnect wait at once; with no wait it skips nothing", async () => {
		const model = new ScriptedModel([
			[{ type: "fail", failure: { class: "timeout", message: "socket hang up" } }],
			[{ type: "text", text: "back" }],
		]);
		// A wait longer than the test may take: only retry-now can end it in time.
		const t = await startServer({ model, settings: { reconnect: { baseMs: 600_000, capMs: 600_000 } } });
		const id = await t.createSession();
		const idle = await t.api(`/chat/sessions/${id}/retry-now`, { method: "POST" });
		expect(await idle.json()).toEqual({ skipped: false });
		const stream = sseReader(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		const failed = messagesOf(await stream.until(isType("request_end"))).at(-1);
		expect(failed).toMatchObject({ status: "timeout", retry_in_ms: 600_000 });
		const skip = await t.api(`/chat/sessions/${id}/retry-now`, { method: "POST" });
		expect(await skip.json()).toEqual({ skipped: true });
		const rest = messagesOf(await stream.rest());
		expect(rest.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
	});

	it("GET /agents and GET /metrics", async () => {
		const t = await startServer({ model: new ScriptedModel([[{ type: "text", text: "x" }]]) });
		const agents = (await (await t.api("/agents")).json()) as Json;
		expect(agents).toMatchObject({ demo: false, agents: [{ id: "default_agent", model: "scripted:model" }] });
		// The first screen shows a new Session's folder: the first workspace root.
		expect(agents.workspaceRoots).toEqual([t.root]);
		const id = await t.createSession();
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		const metrics = await t.api("/metrics");
		expect(metrics.headers.get("content-type")).toContain("text/plain");
		const text = await metrics.text();
		expect(text).toContain('omniloop_sessions{status="idle"} 1');
		expect(text).toContain("omniloop_tasks_running 0");
		expect(text).toMatch(/omniloop_sse_frames_sent_total [1-9]/);
		expect(text).toMatch(/omniloop_messages_emitted_total [1-9]/);
		expect(text).toContain("omniloop_http_request_duration_seconds_count");
	});

	it("with no model configured it serves the offline demo, labelled as such", async () => {
		const t = await startServer({});
		expect(t.server.demo).toBe(true);
		const agents = (await (await t.api("/agents")).json()) as Json;
		expect(agents).toMatchObject({ demo: true, agents: [{ id: "default_agent", model: "offline-demo" }] });
		expect(agents.notice).toContain("offline demo");
		const id = await t.createSession();
		const messages = messagesOf(
			(
				await readFrames(
					await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "hi" } }),
					isType("tool_call"),
				)
			).frames,
		);
		expect(messages.find((m) => m.type === "assistant_text")).toMatchObject({
			text: expect.stringContaining("(offline demo)"),
		});
	});
});

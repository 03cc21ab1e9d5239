import { FakeProviderServer } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import {
	eventually,
	messagesOf,
	onCleanup,
	readFrames,
	sseReader,
	startServer,
	type TestServer,
	tempDirs,
	writeFakeModelConfig,
} from "./harness.js";

type Json = Record<string, unknown>;

/**
 * A fake provider that answers only a request `accepted` says holds the good credential (by
 * default the key "good"), and a project whose model (with `model`'s extra fields) it serves.
 */
async function fakeProject({
	model,
	accepted = (headers) => headers.authorization === "Bearer good",
}: {
	model?: string;
	accepted?: (headers: Record<string, string | string[] | undefined>) => boolean;
} = {}) {
	const provider = await FakeProviderServer.start();
	onCleanup(() => provider.close());
	const dirs = tempDirs();
	writeFakeModelConfig(dirs.root, provider.url, model === undefined ? {} : { model });
	const reply = () =>
		provider.enqueue((request) =>
			accepted(request.headers)
				? { text: "welcome back", usage: { input: 12, output: 4 } }
				: { fault: { kind: "status", status: 401, message: "Incorrect API key provided" } },
		);
	return { provider, dirs, reply };
}

/** The Session as GET /chat/sessions/:id shows it, once `holds` is true of it. */
function sessionOnce(t: TestServer, id: string, holds: (session: Json) => boolean): Promise<Json> {
	return eventually(async () => {
		const { session } = (await (await t.api(`/chat/sessions/${id}`)).json()) as { session: Json };
		return holds(session) ? session : undefined;
	});
}

describe("the auth lock", () => {
	it("a request that ends auth locks the Session; PUT /credentials unlocks it, announces it, and the next request uses the new value", async () => {
		const { provider, dirs, reply } = await fakeProject();
		const t = await startServer({ env: { FAKE_KEY: "bad" } }, dirs);
		const id = await t.createSession();
		reply();
		const failed = messagesOf(
			(await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "hi" } }))).frames,
		);
		expect(failed.find((m) => m.type === "request_end")).toMatchObject({ status: "auth" });
		const locked = await sessionOnce(t, id, (session) => session.lock !== null);
		expect(locked.lock).toEqual({ reason: "auth", credential: "FAKE_KEY" });

		const events = sseReader(await t.api(`/events?session=${id}`));
		const snapshot = JSON.parse((await events.until(() => true))[0]?.data as string) as Json;
		expect(snapshot).toMatchObject({ type: "sessions_snapshot", sessions: [{ id, lock: { credential: "FAKE_KEY" } }] });
		const put = await t.api("/credentials/FAKE_KEY", { method: "PUT", json: { value: "good" } });
		expect(put.status).toBe(204);
		const frames = await events.until((f) => f.data.includes('"session_status"'));
		const parsed = frames.map((f) => JSON.parse(f.data) as Json);
		expect(parsed).toContainEqual({ type: "credential_updated", name: "FAKE_KEY" });
		expect(parsed.at(-1)).toMatchObject({ type: "session_status", sessionId: id, lock: null });
		expect(frames.every((f) => f.id === undefined)).toBe(true);

		const credentials = await (await t.api("/credentials")).text();
		expect(credentials).not.toContain("good");
		expect(JSON.parse(credentials)).toEqual({ credentials: [{ name: "FAKE_KEY", set: true, usedBy: ["main"] }] });

		reply();
		const ok = messagesOf(
			(await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "again" } })))
				.frames,
		);
		expect(ok.find((m) => m.type === "assistant_text")).toMatchObject({ text: "welcome back" });
		expect(provider.requests.at(-1)?.headers.authorization).toBe("Bearer good");
		// The watched Session's messages come with their ids on the same stream.
		const watched = await events.until((f) => f.id !== undefined && f.data.includes('"type":"done"'));
		expect(watched.filter((f) => f.id !== undefined).length).toBeGreaterThan(3);
		await events.close();
	});

	it("a credential the model sends in a header, not its apiKey: PUT /credentials unlocks the Session and its next request sends the new value", async () => {
		const { provider, dirs, reply } = await fakeProject({
			model: 'headers: { X-Team: "${FAKE_TEAM}" }',
			accepted: (headers) => headers["x-team"] === "good",
		});
		const t = await startServer({ env: { FAKE_KEY: "key", FAKE_TEAM: "bad" } }, dirs);
		const id = await t.createSession();
		reply();
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "hi" } }));
		await sessionOnce(t, id, (session) => session.lock !== null);
		expect((await t.api("/credentials/FAKE_TEAM", { method: "PUT", json: { value: "good" } })).status).toBe(204);
		await sessionOnce(t, id, (session) => session.lock === null);
		reply();
		const ok = messagesOf(
			(await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "again" } })))
				.frames,
		);
		expect(provider.requests.at(-1)?.headers["x-team"]).toBe("good");
		expect(ok.find((m) => m.type === "assistant_text")).toMatchObject({ text: "welcome back" });
	});

	it("DELETE …/lock dismisses the notice; the stored credential survives a restart and wins over the environment", async () => {
		const { dirs, reply } = await fakeProject();
		const t = await startServer({ env: { FAKE_KEY: "bad" } }, dirs);
		const id = await t.createSession();
		reply();
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "hi" } }));
		await sessionOnce(t, id, (session) => session.lock !== null);
		expect((await t.api(`/chat/sessions/${id}/lock`, { method: "DELETE" })).status).toBe(204);
		const { session } = (await (await t.api(`/chat/sessions/${id}`)).json()) as { session: Json };
		expect(session.lock).toBeNull();

		await t.api("/credentials/FAKE_KEY", { method: "PUT", json: { value: "good" } });
		await t.server.close();
		const again = await startServer({ env: { FAKE_KEY: "bad" } }, dirs);
		reply();
		const messages = messagesOf(
			(await readFrames(await again.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "x" } })))
				.frames,
		);
		expect(messages.find((m) => m.type === "request_end")).toMatchObject({ status: "ok" });
	});
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionRegistry } from "../src/host/session-registry.js";
import { type SseFrame, sseReader, startServer } from "./harness.js";

afterEach(() => {
	vi.restoreAllMocks();
});

const dataOf = (frame: SseFrame) => JSON.parse(frame.data) as { type: string; sessionId?: string; sessions?: unknown };

describe("GET /events at connect", () => {
	it("a change published while the snapshot is built comes after the snapshot: in one or the other, never lost", async () => {
		const t = await startServer();
		// The one interleaving that lost it, made certain: a Session is created (its session_status
		// published) after the snapshot has read the list and before the stream is open.
		const summaries = SessionRegistry.prototype.summaries;
		let created: Promise<string> | undefined;
		vi.spyOn(SessionRegistry.prototype, "summaries").mockImplementationOnce(async function (this: SessionRegistry) {
			const snapshot = await summaries.call(this);
			created = t.createSession();
			await created;
			return snapshot;
		});
		const events = sseReader(await t.api("/events"));
		const id = await created;
		const [snapshot] = (await events.until((f) => f.data.includes('"sessions_snapshot"'))).map(dataOf);
		expect(snapshot).toMatchObject({ type: "sessions_snapshot", sessions: [] });
		// A later event marks how far the stream has come.
		expect((await t.api("/credentials/MARK_KEY", { method: "PUT", json: { value: "v" } })).status).toBe(204);
		const after = (await events.until((f) => f.data.includes('"credential_updated"'))).map(dataOf);
		expect(after.filter((e) => e.type === "session_status").map((e) => e.sessionId)).toContain(id);
		await events.close();
	});
});

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createAgent, userText } from "@omniloop/core";
import { ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { eventually, readFrames, startServer, tempDirs } from "./harness.js";

/** A Session the CLI made on the same home, in a folder of its own, with one finished Task. */
async function cliSession(home: string, workspaceDir: string): Promise<string> {
	const agent = await createAgent({
		agentId: "default_agent",
		home,
		configDir: workspaceDir,
		env: {},
		model: new ScriptedModel([[{ type: "text", text: "from the CLI" }]]),
	});
	const session = await agent.createSession({ workspaceDir });
	for await (const _ of session.run([userText("hello")])) {
		// Drained: the Trace holds the Task.
	}
	await session.close();
	return session.id;
}

const usage = { type: "usage" as const, usage: { input: 10, output: 5, total: 15 } };

describe("Sessions outside the workspace roots", () => {
	it("a CLI Session made in another folder is not listed, read or driven over HTTP, and the server says so at start", async () => {
		const dirs = tempDirs();
		const elsewhere = join(dirs.base, "elsewhere");
		const inside = join(dirs.root, "project");
		mkdirSync(elsewhere);
		mkdirSync(inside);
		const hiddenId = await cliSession(dirs.home, elsewhere);
		const servedId = await cliSession(dirs.home, inside);
		const notices: string[] = [];
		const t = await startServer({ notice: (text) => notices.push(text) }, dirs);

		expect(notices).toEqual([expect.stringContaining(`1 Session in ${dirs.home} is hidden`)]);
		expect(notices[0]).toContain(`outside the workspace roots (${dirs.root})`);
		const listed = (await (await t.api("/chat/sessions")).json()) as { sessions: { id: string }[] };
		expect(listed.sessions.map((s) => s.id)).toEqual([servedId]);

		const routes: Array<[string, string, unknown?]> = [
			["GET", `/chat/sessions/${hiddenId}`],
			["GET", `/chat/sessions/${hiddenId}/compactability`],
			["POST", `/chat/sessions/${hiddenId}/messages`, { text: "write there" }],
			["POST", `/chat/sessions/${hiddenId}/steer`, { text: "x" }],
			["POST", `/chat/sessions/${hiddenId}/abort`, {}],
			["POST", `/chat/sessions/${hiddenId}/compact`, {}],
			["POST", `/chat/sessions/${hiddenId}/title`, {}],
			["PATCH", `/chat/sessions/${hiddenId}`, { title: "mine now" }],
			["POST", `/chat/sessions/${hiddenId}/ask-user-response`, { correlationId: "c", decision: "allow" }],
			["DELETE", `/chat/sessions/${hiddenId}/lock`],
			["DELETE", `/chat/sessions/${hiddenId}`],
			["GET", `/chat/sessions/${hiddenId}/events`],
			["GET", `/events?session=${hiddenId}`],
		];
		for (const [method, path, json] of routes) {
			const response = await t.api(path, { method, ...(json === undefined ? {} : { json }) });
			expect([method, path, response.status]).toEqual([method, path, 404]);
			const body = (await response.json()) as { error: { code: string } };
			expect(body.error.code).toBe("not_found");
		}

		const events = await t.api("/events");
		const { frames } = await readFrames(events, () => true);
		const snapshot = JSON.parse(frames[0]?.data ?? "{}") as { type: string; sessions: { id: string }[] };
		expect(snapshot.type).toBe("sessions_snapshot");
		expect(snapshot.sessions.map((s) => s.id)).toEqual([servedId]);
	});

	it("a Session the server hosted is hidden after a restart with other roots, its usage by session and its workflows too", async () => {
		const dirs = tempDirs();
		const first = await startServer(
			{
				model: new ScriptedModel([
					[{ type: "text", text: "hi" }, usage],
					[{ type: "text", text: "a workflow's answer" }],
				]),
			},
			dirs,
		);
		const id = await first.createSession();
		await readFrames(await first.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		const started = await first.api("/workflows", { method: "POST", json: { input: "summarize" } });
		const workflow = ((await started.json()) as { id: string }).id;
		await eventually(async () => {
			const view = (await (await first.api(`/workflows/${workflow}`)).json()) as { status: string };
			return view.status === "completed" ? true : undefined;
		}, 60_000);
		await eventually(async () => {
			const body = (await (await first.api(`/usage/rows?sessionId=${id}`)).json()) as { rows: unknown[] };
			return body.rows.length === 1 ? true : undefined;
		}, 60_000);
		await first.server.close();

		const otherRoot = join(dirs.base, "other-root");
		mkdirSync(otherRoot);
		const notices: string[] = [];
		const second = await startServer({ workspaceRoots: [otherRoot], notice: (text) => notices.push(text) }, dirs);
		expect(notices).toEqual([expect.stringContaining("2 Sessions in")]);
		expect((await second.api(`/chat/sessions/${id}`)).status).toBe(404);
		const listed = (await (await second.api("/chat/sessions")).json()) as { sessions: unknown[] };
		expect(listed.sessions).toEqual([]);
		const bySession = (await (await second.api("/usage?groupBy=session")).json()) as { rows: { key: string }[] };
		expect(bySession.rows.map((row) => row.key)).not.toContain(id);
		const rows = (await (await second.api(`/usage/rows?sessionId=${id}`)).json()) as { rows: unknown[] };
		expect(rows.rows).toEqual([]);
		const workflows = (await (await second.api("/workflows")).json()) as { workflows: unknown[] };
		expect(workflows.workflows).toEqual([]);
		expect((await second.api(`/workflows/${workflow}`)).status).toBe(404);
		expect((await second.api(`/workflows/${workflow}/cancel`, { method: "POST", json: {} })).status).toBe(404);
		// Billing history still counts it, unnamed.
		const byDay = (await (await second.api("/usage")).json()) as { rows: { total: number }[] };
		expect(byDay.rows.reduce((sum, row) => sum + row.total, 0)).toBe(15);
	});
});

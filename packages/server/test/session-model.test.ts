import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage, TokenUsage } from "@omniloop/core";
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
	tempDirs,
	touchTool,
} from "./harness.js";

interface Json {
	[key: string]: unknown;
}

const usage = { type: "usage" as const, usage: { input: 10, output: 5, total: 15 } };

/** Two configured models, `main` (the agent's) and `other`, each stood in for by a scripted model of its own. */
async function twoModels() {
	const dirs = tempDirs();
	writeFileSync(
		join(dirs.root, "omniloop.yaml"),
		[
			"models:",
			"  main: { provider: openai-compatible, model: main-model, baseURL: http://127.0.0.1:9/v1 }",
			"  other: { provider: openai-compatible, model: other-model, baseURL: http://127.0.0.1:9/v1 }",
			"agents:",
			"  default_agent: { model: main }",
		].join("\n"),
	);
	const main = new ScriptedModel([callTouch("a"), [{ type: "text", text: "from main" }, usage]], {
		id: "openai-compatible:main-model",
	});
	const other = new ScriptedModel([[{ type: "text", text: "from other" }, usage]], {
		id: "openai-compatible:other-model",
	});
	const runs: string[] = [];
	const t = await startServer({ models: { main, other }, tools: [touchTool(runs)] }, dirs);
	return { t, main, other, dirs };
}

describe("PATCH /chat/sessions/:id { model }", () => {
	it("lists the configured models; 400 names them for an unknown one; 409 while a Task runs; the next Task runs on the new model", async () => {
		const { t, main, other } = await twoModels();
		const agents = (await (await t.api("/agents")).json()) as { models: Json[] };
		expect(agents.models).toEqual([
			{ name: "main", model: "openai-compatible:main-model" },
			{ name: "other", model: "openai-compatible:other-model" },
		]);
		const id = await t.createSession();
		const patch = (json: unknown) => t.api(`/chat/sessions/${id}`, { method: "PATCH", json });
		const sessionNow = async () => ((await (await t.api(`/chat/sessions/${id}`)).json()) as { session: Json }).session;
		expect((await sessionNow()).model).toBe("openai-compatible:main-model");

		const unknown = await patch({ model: "nope" });
		expect(unknown.status).toBe(400);
		expect(await unknown.json()).toEqual({
			error: { code: "invalid_body", message: 'model: "nope" is not a configured model (models: main, other)' },
		});
		for (const body of [{ model: "" }, { model: 3 }, {}, { model: "other", colour: "red" }]) {
			expect((await patch(body)).status, JSON.stringify(body)).toBe(400);
		}
		expect((await t.api("/chat/sessions/none", { method: "PATCH", json: { model: "other" } })).status).toBe(404);

		// A Task waiting on an approval is running: no switch under it.
		const stream = sseReader(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		const asked = messagesOf(await stream.until(isType("confirmation_required"))).at(-1) as OmniMessage & {
			correlationId: string;
		};
		const busy = await patch({ model: "other" });
		expect(busy.status).toBe(409);
		expect(((await busy.json()) as { error: Json }).error.code).toBe("session_busy");
		expect((await sessionNow()).model).toBe("openai-compatible:main-model");
		await t.api(`/chat/sessions/${id}/ask-user-response`, {
			method: "POST",
			json: { correlationId: asked.correlationId, decision: "allow" },
		});
		await stream.rest();
		expect(main.requests).toHaveLength(2);

		const switched = await patch({ model: "other" });
		expect(switched.status).toBe(200);
		expect(await switched.json()).toMatchObject({ id, model: "openai-compatible:other-model" });
		expect((await sessionNow()).model).toBe("openai-compatible:other-model");
		const listed = (await (await t.api("/chat/sessions")).json()) as { sessions: Json[] };
		expect(listed.sessions.find((s) => s.id === id)?.model).toBe("openai-compatible:other-model");

		const next = messagesOf(
			(await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "again" } })))
				.frames,
		);
		expect(next.find((m) => m.type === "assistant_text")).toMatchObject({ text: "from other" });
		expect(next.find((m): m is TokenUsage => m.type === "token_usage")?.model).toBe("openai-compatible:other-model");
		expect(main.requests).toHaveLength(2);
		expect(other.requests).toHaveLength(1);
		// The new model gets the whole conversation so far.
		expect(JSON.stringify(other.requests[0]?.messages)).toContain("from main");

		// A title and a model in one body; the usage rows record the model each request ran on.
		expect(await (await patch({ model: "main", title: "Both" })).json()).toMatchObject({
			title: "Both",
			model: "openai-compatible:main-model",
		});
		const rows = await eventually(async () => {
			const body = (await (await t.api(`/usage/rows?sessionId=${id}`)).json()) as { rows: Json[] };
			return body.rows.length >= 2 ? body.rows : undefined;
		});
		expect(rows.map((row) => row.model)).toContain("openai-compatible:other-model");
	});

	it("the chosen model holds after a restart on the same home", async () => {
		const { t, dirs } = await twoModels();
		const id = await t.createSession();
		expect((await t.api(`/chat/sessions/${id}`, { method: "PATCH", json: { model: "other" } })).status).toBe(200);
		await t.server.close();
		const other = new ScriptedModel([[{ type: "text", text: "still other" }, usage]], {
			id: "openai-compatible:other-model",
		});
		const main = new ScriptedModel([], { id: "openai-compatible:main-model" });
		const again = await startServer({ models: { main, other } }, dirs);
		const read = (await (await again.api(`/chat/sessions/${id}`)).json()) as { session: Json };
		expect(read.session.model).toBe("openai-compatible:other-model");
		const messages = messagesOf(
			(await readFrames(await again.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "hi" } })))
				.frames,
		);
		expect(messages.find((m) => m.type === "assistant_text")).toMatchObject({ text: "still other" });
		expect(main.requests).toHaveLength(0);
	});
});

describe("omniloop.yaml edited while the server runs", () => {
	it("holds from the next Session (a tighter approval); an agent it now defines wrongly is 409 invalid_state naming the key, not a 500", async () => {
		const dirs = tempDirs();
		const yaml = (approval: string) =>
			writeFileSync(
				join(dirs.root, "omniloop.yaml"),
				[
					"models:",
					"  main: { provider: openai-compatible, model: main-model, baseURL: http://127.0.0.1:9/v1 }",
					"agents:",
					`  default_agent: { model: main, approval: { ${approval} } }`,
				].join("\n"),
			);
		yaml("touch: allow");
		const main = new ScriptedModel(
			[callTouch("a"), [{ type: "text", text: "ran" }], callTouch("b"), [{ type: "text", text: "refused" }]],
			{
				id: "openai-compatible:main-model",
			},
		);
		const runs: string[] = [];
		const t = await startServer({ models: { main }, tools: [touchTool(runs)] }, dirs);
		const decisionsOf = async (id: string) => {
			const response = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "touch" } });
			return messagesOf((await readFrames(response)).frames).flatMap((m) =>
				m.type === "approval_decision" ? [`${m.decision}:${m.by}`] : [],
			);
		};
		expect(await decisionsOf(await t.createSession())).toEqual(["allow:policy"]);
		yaml("touch: deny");
		expect(await decisionsOf(await t.createSession())).toEqual(["deny:policy"]);
		expect(runs).toEqual(["a"]);
		yaml("tuch: deny");
		const refused = await t.api("/chat/sessions", { method: "POST", json: {} });
		expect(refused.status).toBe(409);
		const body = (await refused.json()) as { error: { code: string; message: string } };
		expect(body.error.code).toBe("invalid_state");
		expect(body.error.message).toContain("agents.default_agent.approval.tuch: no tool is named");
	});
});

import { createSessionBody, MAX_SEARCH_QUERY, patchSessionBody } from "@omniloop/client/wire";
import type { Hono } from "hono";
import { confineWorkspace } from "../auth/workspace.js";
import { rootOf } from "../auth/workspace-root.js";
import { intQuery, noBody, readBody } from "../body.js";
import { HttpError } from "../errors.js";
import { DEFAULT_AGENT } from "../host/agents.js";
import { searchSessions } from "../host/session-search.js";
import type { AppEnv, ServerState } from "../server-state.js";

/** The Session index: create, list, read (history and pending confirmations), delete, titles, its model, the lock. */
export function sessionRoutes(app: Hono<AppEnv>, state: ServerState): void {
	const { registry } = state;

	app.post("/chat/sessions", async (c) => {
		const body = await readBody(c, createSessionBody);
		const workspaceDir = confineWorkspace(state.workspaceRoots, body.workspaceDir);
		const hosted = await registry.create(
			body.agentId ?? DEFAULT_AGENT,
			workspaceDir,
			rootOf(state.workspaceRoots, workspaceDir),
		);
		state.workflows.madeForChat(hosted.id);
		const { row } = hosted;
		return c.json(
			{ id: row.id, agentId: row.agentId, model: row.model, workspaceDir: row.workspaceDir, createdAt: row.createdAt },
			201,
		);
	});

	app.get("/chat/sessions", async (c) => {
		const q = c.req.query("q");
		if (q === undefined || q.trim() === "") return c.json({ sessions: await registry.summaries() });
		if (q.length > MAX_SEARCH_QUERY)
			throw new HttpError("invalid_body", `q: longer than ${MAX_SEARCH_QUERY} characters`);
		return c.json(await searchSessions(registry, q));
	});

	app.get("/chat/sessions/:id", async (c) => {
		const id = c.req.param("id");
		const session = await registry.summary(id);
		const hosted = registry.get(id);
		const after = intQuery(c, "after") ?? 0;
		const limit = intQuery(c, "limit");
		const history = await hosted.log.history(after);
		const traceDamage = hosted.log.damage.list();
		return c.json({
			session: { ...session, instructions: await hosted.instructions() },
			messages: limit === undefined ? history : history.slice(0, limit),
			pendingConfirmations: await hosted.pendingConfirmations(),
			// Only when there is some: a Trace line that could not be read, left out of `messages`.
			...(traceDamage.length > 0 ? { traceDamage } : {}),
		});
	});

	app.delete("/chat/sessions/:id", async (c) => {
		await registry.delete(c.req.param("id"));
		return c.body(null, 204);
	});

	app.get("/chat/sessions/:id/compactability", async (c) => {
		const compactability = await registry.get(c.req.param("id")).compactability();
		return c.json({ compactability });
	});

	app.patch("/chat/sessions/:id", async (c) => {
		const hosted = registry.get(c.req.param("id"));
		const { title, model } = await readBody(c, patchSessionBody);
		// The model first: a refused switch (unknown, busy) leaves the title as it was too.
		if (model !== undefined) await registry.setModel(hosted, model);
		if (title !== undefined) await hosted.rename(title);
		return c.json(await registry.summary(hosted.id));
	});

	app.post("/chat/sessions/:id/title", async (c) => {
		await noBody(c);
		const title = await registry.get(c.req.param("id")).generateTitle();
		return c.json({ title });
	});

	app.delete("/chat/sessions/:id/lock", async (c) => {
		await noBody(c);
		await registry.get(c.req.param("id")).setLock(null);
		return c.body(null, 204);
	});
}

import type { Hono } from "hono";
import { z } from "zod";
import { confineWorkspace } from "../auth/workspace.js";
import { rootOf } from "../auth/workspace-root.js";
import { intQuery, readBody } from "../body.js";
import { DEFAULT_AGENT } from "../host/agents.js";
import type { AppEnv, ServerState } from "../server-state.js";

const createBody = z
	.object({
		agentId: z.string().min(1).optional(),
		workspaceDir: z.string().min(1).optional(),
	})
	.strict();

/** The Session index: create, list, read (history and pending confirmations), delete, titles, the lock. */
export function sessionRoutes(app: Hono<AppEnv>, state: ServerState): void {
	const { registry } = state;

	app.post("/chat/sessions", async (c) => {
		const body = await readBody(c, createBody);
		const workspaceDir = confineWorkspace(state.workspaceRoots, body.workspaceDir);
		const hosted = await registry.create(
			body.agentId ?? DEFAULT_AGENT,
			workspaceDir,
			rootOf(state.workspaceRoots, workspaceDir),
		);
		const { row } = hosted;
		return c.json(
			{ id: row.id, agentId: row.agentId, model: row.model, workspaceDir: row.workspaceDir, createdAt: row.createdAt },
			201,
		);
	});

	app.get("/chat/sessions", async (c) => c.json({ sessions: await registry.summaries() }));

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

	app.post("/chat/sessions/:id/title", async (c) => {
		const title = await registry.get(c.req.param("id")).generateTitle();
		return c.json({ title });
	});

	app.delete("/chat/sessions/:id/lock", async (c) => {
		await registry.get(c.req.param("id")).setLock(null);
		return c.body(null, 204);
	});
}

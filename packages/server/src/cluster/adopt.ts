import type { Hono } from "hono";
import type { AppEnv, ServerState } from "../server-state.js";

/**
 * With several processes on one database, a Session may have been created by another one: the
 * routes under `/chat/sessions/:id` find it here because it is adopted from the store first.
 */
export function adoptSessions(app: Hono<AppEnv>, state: ServerState): void {
	if (state.host.cluster === undefined) return;
	const adopt = async (id: string | undefined) => {
		if (id !== undefined && id !== "") await state.registry.adopt(id);
	};
	app.use("/chat/sessions/:id", async (c, next) => {
		await adopt(c.req.param("id"));
		await next();
	});
	app.use("/chat/sessions/:id/*", async (c, next) => {
		await adopt(c.req.param("id"));
		await next();
	});
	// A workflow another process started: its Session, for approve, resume and cancel here.
	app.use("/workflows/:id/*", async (c, next) => {
		const workflow = await state.host.store.workflows.get(c.req.param("id"));
		if (workflow !== undefined) await adopt(workflow.sessionId);
		await next();
	});
	app.use("/events", async (c, next) => {
		await adopt(c.req.query("session"));
		await next();
	});
}

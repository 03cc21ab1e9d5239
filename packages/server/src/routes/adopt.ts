import type { Hono } from "hono";
import type { AppEnv, ServerState } from "../server-state.js";

/**
 * A Session may have been created by another process on the same store: the routes under
 * `/chat/sessions/:id` find it here because it is adopted first (alone, there is nothing to adopt).
 */
export function adoptSessions(app: Hono<AppEnv>, state: ServerState): void {
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
		await state.registry.adoptWorkflowSession(c.req.param("id"));
		await next();
	});
	app.use("/events", async (c, next) => {
		await adopt(c.req.query("session"));
		await next();
	});
}

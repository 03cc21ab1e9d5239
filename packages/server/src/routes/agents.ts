import type { Hono } from "hono";
import { z } from "zod";
import { readBody } from "../body.js";
import { HttpError } from "../errors.js";
import type { AppEnv, ServerState } from "../server-state.js";

const valueBody = z.object({ value: z.string().min(1) }).strict();
const CREDENTIAL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The configured agents, and the credentials their models read (names and whether set; never values). */
export function agentRoutes(app: Hono<AppEnv>, state: ServerState): void {
	const { host } = state;

	// The workspace roots too: the first screen shows the folder a new Session gets by default.
	app.get("/agents", (c) => c.json({ ...host.agents.describe(), workspaceRoots: state.workspaceRoots }));

	app.get("/credentials", async (c) => {
		const listed = host.credentials.list();
		const names = new Set(listed.map((entry) => entry.name));
		for (const name of (await host.store.credentials()).keys()) {
			if (!names.has(name)) listed.push({ name, set: true, usedBy: [] });
		}
		return c.json({ credentials: listed });
	});

	app.put("/credentials/:name", async (c) => {
		const name = c.req.param("name");
		if (!CREDENTIAL_NAME.test(name)) {
			throw new HttpError("invalid_body", `name: ${name} is not a variable name (letters, digits, _)`);
		}
		const { value } = await readBody(c, valueBody);
		await host.store.setCredential(name, value, Date.now());
		host.credentials.set(name, value);
		await state.registry.credentialUpdated(name);
		return c.body(null, 204);
	});

	app.get("/metrics", (c) => {
		const sessionsByStatus: Record<string, number> = { idle: 0, busy: 0, waiting_approval: 0 };
		let tasksRunning = 0;
		for (const hosted of state.registry.all()) {
			sessionsByStatus[hosted.status] = (sessionsByStatus[hosted.status] ?? 0) + 1;
			if (hosted.running) tasksRunning++;
		}
		return c.text(
			state.metrics.render({ sessionsByStatus, tasksRunning, usageRowsPending: state.host.usage.pendingRows }),
			200,
			{
				"content-type": "text/plain; version=0.0.4; charset=utf-8",
			},
		);
	});
}

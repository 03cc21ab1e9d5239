import { credentialBody } from "@omniloop/client/wire";
import type { Hono } from "hono";
import { readBody } from "../body.js";
import { HttpError } from "../errors.js";
import type { AppEnv, ServerState } from "../server-state.js";

const CREDENTIAL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The credentials the agents' models read: names and whether set, never values; set one. */
export function credentialRoutes(app: Hono<AppEnv>, state: ServerState): void {
	const { host } = state;

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
		const { value } = await readBody(c, credentialBody);
		await host.store.setCredential(name, value, Date.now());
		host.credentials.set(name, value);
		await state.registry.credentialUpdated(name);
		return c.body(null, 204);
	});
}

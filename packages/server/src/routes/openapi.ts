import { readFileSync } from "node:fs";
import { openApiDocument } from "@omniloop/client/wire";
import type { Hono } from "hono";
import type { AppEnv } from "../server-state.js";

/** This package's version: its package.json is two folders up from `src/routes/` and `dist/routes/` alike. */
function serverVersion(): string {
	const manifest: unknown = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
	const version = (manifest as { version?: unknown }).version;
	return typeof version === "string" ? version : "0.0.0";
}

/** `GET /openapi.json`: the OpenAPI 3.1 document of every route, made from the route table (docs/protocol.md §3). */
export function openApiRoutes(app: Hono<AppEnv>): void {
	const document = openApiDocument(serverVersion());
	app.get("/openapi.json", (c) => c.json(document));
}

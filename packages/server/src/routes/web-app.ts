import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hono } from "hono";
import { notFound } from "../errors.js";
import type { AppEnv } from "../server-state.js";

/**
 * The built web app: `web/` of this package (packages/web builds into it, and the package ships
 * it), two folders up from `src/routes/` and from `dist/routes/` alike.
 */
export const WEB_APP_DIR = fileURLToPath(new URL("../../web/", import.meta.url));

const TYPES: Record<string, string> = {
	".js": "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".wasm": "application/wasm",
	".svg": "image/svg+xml",
	".png": "image/png",
	".woff2": "font/woff2",
	".json": "application/json",
};

/** A file name Vite writes into `assets/`: no folders, no dot-dot. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** The web app's page, or undefined when it is not built (the server then shows its own page). */
export function webAppIndex(dir = WEB_APP_DIR): string | undefined {
	const index = join(dir, "index.html");
	return existsSync(index) ? readFileSync(index, "utf8") : undefined;
}

/**
 * The web app's assets, without the token (a `<script src>` sends no Bearer header): they are the
 * published build, the same for everyone, and hold no data.
 */
export function webAppRoutes(app: Hono<AppEnv>, dir = WEB_APP_DIR): void {
	app.get("/assets/:name", async (c) => {
		const name = c.req.param("name");
		const type = TYPES[extname(name)];
		if (!ASSET_NAME.test(name) || type === undefined) throw notFound(`asset ${name}`);
		let body: Buffer;
		try {
			body = await readFile(join(dir, "assets", name));
		} catch {
			throw notFound(`asset ${name}`);
		}
		// Vite puts a content hash in every asset name: a name never changes its content.
		return c.body(new Uint8Array(body), 200, {
			"content-type": type,
			"cache-control": "public, max-age=31536000, immutable",
		});
	});
}

import type { Hono } from "hono";
import type { AppEnv } from "../server-state.js";
import { webAppIndex } from "./web-app.js";

function homePage(demo: boolean): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>omniloop</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>omniloop Runtime Server</h1>
${demo ? "<p><strong>Offline demo:</strong> no model is configured; Sessions run a scripted model.</p>" : ""}
<p>The web app is not part of this build yet. The HTTP API is live: see <code>GET /chat/sessions</code>,
<code>GET /agents</code> and the README's "Runtime Server" section.</p>
</body></html>
`;
}

/**
 * `/healthz` and the browser's entry page, without the token guard: the page holds no data, the
 * app asks for the token itself (from the URL's `#token=`, or pasted) and sends it as a Bearer
 * header on every call (README, "Security").
 */
export function pageRoutes(app: Hono<AppEnv>, demo: () => boolean): void {
	app.get("/healthz", (c) => c.json({ ok: true }));
	app.get("/", (c) => {
		const fromQuery = c.req.query("token");
		// An old link (`/?token=…`): the token moves to the fragment, which no request or Referer
		// carries, before the app reads it there. Nothing is set on the browser's side.
		if (fromQuery !== undefined) return c.redirect(`/#token=${encodeURIComponent(fromQuery)}`, 302);
		return c.html(webAppIndex() ?? homePage(demo()));
	});
}

import type { Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { TOKEN_COOKIE } from "../auth/guard.js";
import { tokenMatches } from "../auth/token.js";
import type { AppEnv, ServerState } from "../server-state.js";
import { webAppIndex } from "./web-app.js";

const UNAUTHORIZED_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>omniloop: open the link with the token</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>This page needs the server's token</h1>
<p>Open the URL that <code>omniloop serve</code> printed as its first line: it ends in <code>/?token=…</code>.
The browser then keeps the token in a cookie for this server.</p>
<p>The token is also in <code>$OMNILOOP_HOME/server.json</code>. Cookies ignore ports: two servers opened in one
browser share the cookie, so give them the same <code>OMNILOOP_TOKEN</code> or different host names.</p>
</body></html>
`;

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

/** `/healthz` and the browser's entry page, the only routes without the token guard. */
export function pageRoutes(app: Hono<AppEnv>, state: ServerState, demo: () => boolean): void {
	app.get("/healthz", (c) => c.json({ ok: true }));
	app.get("/", (c) => {
		const fromQuery = c.req.query("token");
		if (fromQuery !== undefined && tokenMatches(state.token, fromQuery)) {
			// The token moves into a cookie and out of the address bar (and the history).
			setCookie(c, TOKEN_COOKIE, fromQuery, { httpOnly: true, sameSite: "Strict", path: "/" });
			return c.redirect("/", 302);
		}
		if (!tokenMatches(state.token, getCookie(c, TOKEN_COOKIE))) return c.html(UNAUTHORIZED_PAGE, 401);
		return c.html(webAppIndex() ?? homePage(demo()));
	});
}

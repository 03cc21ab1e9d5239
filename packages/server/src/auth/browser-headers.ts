import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../server-state.js";

/**
 * What a browser may do with anything this server sends (README, "Security"): load scripts, styles,
 * images and connections from this origin only (images also from `data:` and `blob:`), never be
 * framed, never send a Referer. The CSP is the backstop behind the web app's own rule that model
 * and tool output never makes the browser contact another origin: a remote image the renderer
 * missed is still not fetched.
 */
export const CONTENT_SECURITY_POLICY = [
	"default-src 'self'",
	"img-src 'self' data: blob:",
	"connect-src 'self'",
	"frame-ancestors 'none'",
	"base-uri 'none'",
	"form-action 'self'",
	"object-src 'none'",
].join("; ");

export const BROWSER_HEADERS: Readonly<Record<string, string>> = {
	"content-security-policy": CONTENT_SECURITY_POLICY,
	"x-content-type-options": "nosniff",
	"referrer-policy": "no-referrer",
	"x-frame-options": "DENY",
};

/**
 * Sets the headers on the Node response before anything runs, so every answer carries them: pages,
 * assets, JSON, errors, 404s, and the SSE streams, which are written to the Node response directly
 * (the adapter's `writeHead` merges what is set here).
 */
export function browserHeaders(): MiddlewareHandler<AppEnv> {
	return async (c, next) => {
		for (const [name, value] of Object.entries(BROWSER_HEADERS)) c.env.outgoing.setHeader(name, value);
		await next();
	};
}

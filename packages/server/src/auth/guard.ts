import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { HttpError } from "../errors.js";
import { tokenMatches } from "./token.js";

export const TOKEN_COOKIE = "omniloop_token";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** The host name of a Host header (`127.0.0.1:4317` → `127.0.0.1`, `[::1]:80` → `[::1]`). */
export function hostName(host: string): string {
	const trimmed = host.trim().toLowerCase();
	if (trimmed.startsWith("[")) return trimmed.slice(0, trimmed.indexOf("]") + 1);
	const colon = trimmed.lastIndexOf(":");
	return colon === -1 ? trimmed : trimmed.slice(0, colon);
}

/**
 * Host and Origin, on every route (healthz too): a Host that is not a loopback name or an allowed
 * host is DNS rebinding; an Origin other than the server's own is another site's page. Either is 403.
 */
export function originGuard(allowedHosts: readonly string[]): MiddlewareHandler {
	const allowed = new Set([...LOOPBACK_NAMES, ...allowedHosts.map((h) => h.toLowerCase())]);
	return async (c, next) => {
		const host = c.req.header("host");
		if (host === undefined || !allowed.has(hostName(host))) {
			throw new HttpError("forbidden", `Host ${host ?? "(none)"} is not a loopback name or an allowed host`);
		}
		const origin = c.req.header("origin");
		if (origin !== undefined && origin !== `http://${host.toLowerCase()}`) {
			throw new HttpError("forbidden", `Origin ${origin} is not this server's origin`);
		}
		await next();
	};
}

/** The token, from `Authorization: Bearer …` or the `omniloop_token` cookie. */
export function presentedToken(authorization: string | undefined, cookie: string | undefined): string | undefined {
	if (authorization?.startsWith("Bearer ")) return authorization.slice("Bearer ".length).trim();
	return cookie;
}

/** Every route but `/healthz` and the pages needs the token. */
export function tokenGuard(token: string): MiddlewareHandler {
	return async (c, next) => {
		const presented = presentedToken(c.req.header("authorization"), getCookie(c, TOKEN_COOKIE));
		if (!tokenMatches(token, presented)) {
			throw new HttpError(
				"unauthorized",
				presented === undefined
					? "the token is missing: send Authorization: Bearer <token> (omniloop serve printed it)"
					: "the token is wrong",
			);
		}
		await next();
	};
}

import type { MiddlewareHandler } from "hono";
import { HttpError } from "../errors.js";
import { tokenMatches } from "./token.js";

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
 * host is DNS rebinding; an Origin other than the server's own, or a request the browser marks
 * `Sec-Fetch-Site: cross-site`, is another site's page. Each is 403.
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
		// A browser sends no Origin on a cross-site GET (an <img>, a script, a frame); it does send
		// this. A person following a link to the app from another site's page is a top-level GET
		// navigation: it carries no credential and its answer stays with the person, so it passes.
		if (c.req.header("sec-fetch-site") === "cross-site" && !isTopLevelNavigation(c.req.method, c.req.header())) {
			throw new HttpError("forbidden", "Sec-Fetch-Site: cross-site: another site's page may not call this server");
		}
		await next();
	};
}

function isTopLevelNavigation(method: string, headers: Record<string, string>): boolean {
	return method === "GET" && headers["sec-fetch-mode"] === "navigate" && headers["sec-fetch-dest"] === "document";
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * A write's body is JSON or nothing: a form or a text/plain body (what another site's page can
 * send without a preflight) is 415 before any route reads it.
 */
export function jsonBodyGuard(): MiddlewareHandler {
	return async (c, next) => {
		if (WRITES.has(c.req.method)) {
			const type = c.req.header("content-type");
			const length = c.req.header("content-length");
			const hasBody = (length !== undefined && length !== "0") || c.req.header("transfer-encoding") !== undefined;
			const mediaType = type?.split(";")[0]?.trim().toLowerCase();
			if ((hasBody || type !== undefined) && mediaType !== "application/json") {
				throw new HttpError(
					"unsupported_media_type",
					`Content-Type ${type ?? "(none)"}: a ${c.req.method} body must be application/json`,
				);
			}
		}
		await next();
	};
}

/** The token, from `Authorization: Bearer …` only: no cookie, so no ambient credential (README, "Security"). */
export function presentedToken(authorization: string | undefined): string | undefined {
	if (authorization?.startsWith("Bearer ")) return authorization.slice("Bearer ".length).trim();
	return undefined;
}

/** Every route but `/healthz`, the page and its assets needs the token. */
export function tokenGuard(token: string): MiddlewareHandler {
	return async (c, next) => {
		const presented = presentedToken(c.req.header("authorization"));
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

import { request } from "node:http";
import { ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { startServer } from "./harness.js";

const CSP =
	"default-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

function expectBrowserHeaders(response: Response, what: string): void {
	expect(response.headers.get("content-security-policy"), what).toBe(CSP);
	expect(response.headers.get("x-content-type-options"), what).toBe("nosniff");
	expect(response.headers.get("referrer-policy"), what).toBe("no-referrer");
	expect(response.headers.get("x-frame-options"), what).toBe("DENY");
	expect(response.headers.get("set-cookie"), what).toBeNull();
}

/** A GET as a browser's navigation sends it (fetch always says `Sec-Fetch-Mode: cors`). */
function navigate(port: number, path: string, headers: Record<string, string>): Promise<number> {
	return new Promise((resolve, reject) => {
		const req = request({ host: "127.0.0.1", port, path, headers }, (res) => {
			res.resume();
			resolve(res.statusCode ?? 0);
		});
		req.on("error", reject);
		req.end();
	});
}

async function errorOf(response: Response): Promise<{ code: string; message: string }> {
	return ((await response.json()) as { error: { code: string; message: string } }).error;
}

describe("what a browser is told (README, Security)", () => {
	it("every answer carries the CSP, nosniff, no-referrer and DENY, and no cookie: page, JSON, errors, 404, SSE", async () => {
		const t = await startServer({ model: new ScriptedModel([]) });
		const o = t.server.origin;
		const answers: [string, Response][] = [
			["GET /", await fetch(`${o}/`)],
			["GET /?token=", await fetch(t.server.url.replace("#", "?"), { redirect: "manual" })],
			["GET /healthz", await fetch(`${o}/healthz`)],
			["GET /chat/sessions", await t.api("/chat/sessions")],
			["401", await fetch(`${o}/chat/sessions`)],
			["404", await t.api("/no/such/route")],
			["missing asset", await fetch(`${o}/assets/missing.js`)],
			["403", await t.api("/chat/sessions", { headers: { origin: "http://evil.example" } })],
			["415", await t.api("/chat/sessions", { method: "POST", body: "a=1" })],
		];
		for (const [what, response] of answers) {
			expectBrowserHeaders(response, what);
			await response.body?.cancel();
		}
		for (const path of ["/events", `/chat/sessions/${await t.createSession()}/events`]) {
			const stream = await t.api(path, { headers: { accept: "text/event-stream" } });
			expect(stream.headers.get("content-type"), path).toContain("text/event-stream");
			expectBrowserHeaders(stream, path);
			await stream.body?.cancel();
		}
	});

	it("the token is never a cookie: a cookie is no credential, and an old /?token= link moves it to the fragment", async () => {
		const t = await startServer({ model: new ScriptedModel([]) });
		const withCookie = await fetch(`${t.server.origin}/chat/sessions`, {
			headers: { cookie: `omniloop_token=${t.server.token}` },
		});
		expect(withCookie.status).toBe(401);
		expect(t.server.url).toBe(`${t.server.origin}/#token=${t.server.token}`);
		const old = await fetch(`${t.server.origin}/?token=${t.server.token}`, { redirect: "manual" });
		expect(old.status).toBe(302);
		expect(old.headers.get("location")).toBe(`/#token=${t.server.token}`);
		expect(old.headers.get("set-cookie")).toBeNull();
	});

	it("a write with a body that is not JSON is 415 unsupported_media_type, before the route; JSON and empty writes pass", async () => {
		const t = await startServer({ model: new ScriptedModel([]) });
		const id = await t.createSession();
		const cases: [string, string, Record<string, string>, string | undefined][] = [
			["POST", "/chat/sessions", { "content-type": "application/x-www-form-urlencoded" }, "agentId=x"],
			["POST", `/chat/sessions/${id}/messages`, { "content-type": "text/plain" }, '{"text":"hi"}'],
			["POST", `/chat/sessions/${id}/messages`, { "content-type": "multipart/form-data; boundary=x" }, "--x--"],
			["PUT", "/credentials/KEY", { "content-type": "text/plain;charset=UTF-8" }, '{"value":"v"}'],
			["DELETE", `/chat/sessions/${id}`, { "content-type": "text/plain" }, "x"],
			// A form with no fields still names its type.
			["POST", `/chat/sessions/${id}/abort`, { "content-type": "application/x-www-form-urlencoded" }, undefined],
		];
		for (const [method, path, headers, body] of cases) {
			const response = await t.api(path, { method, headers, ...(body === undefined ? {} : { body }) });
			const what = `${method} ${path} ${headers["content-type"]}`;
			expect(response.status, what).toBe(415);
			const error = await errorOf(response);
			expect(error.code, what).toBe("unsupported_media_type");
			expect(error.message, what).toContain("application/json");
		}
		// Nothing of those reached a Session: it is still there, with no message.
		const session = (await (await t.api(`/chat/sessions/${id}`)).json()) as { messages: unknown[] };
		expect(session.messages).toEqual([]);
		const json = await t.api("/chat/sessions", {
			method: "POST",
			body: "{}",
			headers: { "content-type": "application/json; charset=utf-8" },
		});
		expect(json.status).toBe(201);
		expect((await t.api(`/chat/sessions/${id}/abort`, { method: "POST" })).status).toBe(200);
	});

	it("Sec-Fetch-Site: cross-site is 403 forbidden on every route but a person's top-level navigation to the page", async () => {
		const t = await startServer({ model: new ScriptedModel([]) });
		const crossSite = { "sec-fetch-site": "cross-site" };
		for (const [method, path, headers] of [
			["GET", "/healthz", { "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image" }],
			["GET", "/chat/sessions", { "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" }],
			["POST", "/chat/sessions", { "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" }],
		] as const) {
			const response = await t.api(path, { method, headers: { ...crossSite, ...headers } });
			expect(response.status, `${method} ${path} ${headers["sec-fetch-dest"]}`).toBe(403);
			expect((await errorOf(response)).code).toBe("forbidden");
		}
		const navigation = { ...crossSite, "sec-fetch-mode": "navigate" };
		expect(await navigate(t.server.port, "/", { ...navigation, "sec-fetch-dest": "document" })).toBe(200);
		expect(await navigate(t.server.port, "/", { ...navigation, "sec-fetch-dest": "iframe" })).toBe(403);
		for (const site of ["same-origin", "none"]) {
			expect((await t.api("/chat/sessions", { headers: { "sec-fetch-site": site } })).status, site).toBe(200);
		}
	});
});

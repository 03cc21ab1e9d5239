import { mkdirSync, statSync, symlinkSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { readServerToken } from "../src/index.js";
import { startServer, tempDirs } from "./harness.js";

/** A raw request, so the Host header can be anything (fetch does not let a page set it). */
function rawGet(
	port: number,
	path: string,
	headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const req = request({ host: "127.0.0.1", port, path, method: "GET", headers }, (res) => {
			let body = "";
			res.on("data", (chunk: Buffer) => {
				body += chunk.toString();
			});
			res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
		});
		req.on("error", reject);
		req.end();
	});
}

async function errorCode(response: Response): Promise<string> {
	return ((await response.json()) as { error: { code: string } }).error.code;
}

describe("security", () => {
	it("healthz answers without the token; every other route needs it as a Bearer header", async () => {
		const t = await startServer({ model: new ScriptedModel([]) });
		const health = await fetch(`${t.server.origin}/healthz`);
		expect(await health.json()).toEqual({ ok: true });
		const missing = await fetch(`${t.server.origin}/chat/sessions`);
		expect(missing.status).toBe(401);
		expect(await errorCode(missing)).toBe("unauthorized");
		const wrong = await fetch(`${t.server.origin}/chat/sessions`, { headers: { authorization: "Bearer nope" } });
		expect(wrong.status).toBe(401);
		expect((await t.api("/chat/sessions")).status).toBe(200);
		for (const [method, path] of [
			["GET", "/usage"],
			["GET", "/metrics"],
			["GET", "/events"],
			["PUT", "/credentials/X"],
			["POST", "/chat/sessions"],
		] as const) {
			expect((await fetch(`${t.server.origin}${path}`, { method })).status, `${method} ${path}`).toBe(401);
		}
	});

	it("the page needs no token (the app asks for it); an old /?token= link redirects to /#token=", async () => {
		const t = await startServer({ model: new ScriptedModel([]) });
		const page = await fetch(`${t.server.origin}/`);
		expect(page.status).toBe(200);
		expect(page.headers.get("content-type")).toContain("text/html");
		const open = await fetch(`${t.server.origin}/?token=${t.server.token}`, { redirect: "manual" });
		expect(open.status).toBe(302);
		expect(open.headers.get("location")).toBe(`/#token=${t.server.token}`);
		expect(open.headers.get("set-cookie")).toBeNull();
	});

	it("a foreign Origin is 403 on every route, healthz too; the server's own origin passes", async () => {
		const t = await startServer({ model: new ScriptedModel([]) });
		for (const path of ["/healthz", "/chat/sessions", "/"]) {
			const response = await t.api(path, { headers: { origin: "http://evil.example" } });
			expect(response.status, path).toBe(403);
		}
		const own = await t.api("/chat/sessions", { headers: { origin: t.server.origin } });
		expect(own.status).toBe(200);
	});

	it("a Host that is not a loopback name is 403 (DNS rebinding), healthz too; an allowed host passes", async () => {
		const t = await startServer({ model: new ScriptedModel([]), allowedHosts: ["omni.test"] });
		const auth = { authorization: `Bearer ${t.server.token}` };
		expect((await rawGet(t.server.port, "/healthz", { host: "evil.example" })).status).toBe(403);
		expect(
			(await rawGet(t.server.port, "/chat/sessions", { ...auth, host: `evil.example:${t.server.port}` })).status,
		).toBe(403);
		expect((await rawGet(t.server.port, "/healthz", { host: `localhost:${t.server.port}` })).status).toBe(200);
		expect((await rawGet(t.server.port, "/healthz", { host: `[::1]:${t.server.port}` })).status).toBe(200);
		expect((await rawGet(t.server.port, "/healthz", { host: "omni.test" })).status).toBe(200);
	});

	it("workspaceDir must lie inside a root, symlinks followed; relative paths resolve against the first root", async () => {
		const dirs = tempDirs();
		mkdirSync(join(dirs.root, "inner"));
		mkdirSync(join(dirs.base, "outside"));
		symlinkSync(join(dirs.base, "outside"), join(dirs.root, "escape"));
		const t = await startServer({ model: new ScriptedModel([]) }, dirs);
		const inner = await t.api("/chat/sessions", { method: "POST", json: { workspaceDir: "inner" } });
		expect(inner.status).toBe(201);
		expect(((await inner.json()) as { workspaceDir: string }).workspaceDir).toBe(join(dirs.root, "inner"));
		const byDefault = await t.api("/chat/sessions", { method: "POST", json: {} });
		expect(((await byDefault.json()) as { workspaceDir: string }).workspaceDir).toBe(dirs.root);
		for (const workspaceDir of [join(dirs.base, "outside"), "escape", "..", "/", "missing"]) {
			const response = await t.api("/chat/sessions", { method: "POST", json: { workspaceDir } });
			expect(response.status, workspaceDir).toBe(400);
			const error = ((await response.json()) as { error: { code: string; message: string } }).error;
			expect(error.code).toBe("invalid_body");
			expect(error.message).toMatch(/^workspaceDir: /);
		}
	});

	it("bad bodies are 400 naming the field; an oversized body is 413", async () => {
		const t = await startServer({ model: new ScriptedModel([]), server: { bodyLimitBytes: 1000 } });
		const id = await t.createSession();
		const cases: [string, string, unknown, RegExp][] = [
			["POST", "/chat/sessions", { agentId: 5 }, /^agentId: /],
			["POST", "/chat/sessions", { extra: true }, /extra|body/],
			["POST", `/chat/sessions/${id}/messages`, {}, /^text: /],
			["POST", `/chat/sessions/${id}/messages`, { text: "" }, /^text: /],
			[
				"POST",
				`/chat/sessions/${id}/messages`,
				{ messages: [{ type: "assistant_text", text: "x" }] },
				/^messages\.0\.type: /,
			],
			["POST", `/chat/sessions/${id}/messages`, { text: "a", thinkingLevel: "max" }, /^thinkingLevel: /],
			["POST", `/chat/sessions/${id}/steer`, { text: 3 }, /^text: /],
			["PUT", "/credentials/KEY", { value: "" }, /^value: /],
			["PUT", "/credentials/bad-name", { value: "x" }, /^name: /],
			// The routes that take no body refuse fields too.
			["POST", `/chat/sessions/${id}/abort`, { foo: 1 }, /foo/],
			["POST", `/chat/sessions/${id}/compact`, { foo: 1 }, /foo/],
			["POST", `/chat/sessions/${id}/title`, { foo: 1 }, /foo/],
			["POST", `/chat/sessions/${id}/retry-now`, { foo: 1 }, /foo/],
			["POST", `/chat/sessions/${id}/instructions/reload`, { foo: 1 }, /foo/],
			["DELETE", `/chat/sessions/${id}/lock`, { foo: 1 }, /foo/],
		];
		for (const [method, path, json, message] of cases) {
			const response = await t.api(path, { method, json });
			expect(response.status, `${path} ${JSON.stringify(json)}`).toBe(400);
			const error = ((await response.json()) as { error: { code: string; message: string } }).error;
			expect(error.code).toBe("invalid_body");
			expect(error.message).toMatch(message);
		}
		const notJson = await t.api("/chat/sessions", {
			method: "POST",
			body: "{nope",
			headers: { "content-type": "application/json" },
		});
		expect(notJson.status).toBe(400);
		const big = await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "x".repeat(5000) } });
		expect(big.status).toBe(413);
		expect(await errorCode(big)).toBe("payload_too_large");
		// A chunked body states no length: it is counted as it is read, and read in full when small.
		const chunked = (text: string) =>
			t.api("/chat/sessions", {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: new Blob([text]).stream(),
				duplex: "half",
			} as RequestInit & { duplex: "half" });
		const bigChunked = await chunked(JSON.stringify({ title: "x".repeat(5000) }));
		expect(bigChunked.status).toBe(413);
		expect(await errorCode(bigChunked)).toBe("payload_too_large");
		const smallChunked = await chunked(JSON.stringify({ agentId: 5 }));
		expect(smallChunked.status).toBe(400);
		expect(((await smallChunked.json()) as { error: { message: string } }).error.message).toMatch(/^agentId: /);
	});

	it("the generated token is written to server.json with mode 0600", async () => {
		const dirs = tempDirs();
		const t = await startServer(
			// The SQLite file's mode is the point here, whichever store the other tests run on.
			{ model: new ScriptedModel([]), token: undefined, database: join(dirs.home, "omniloop.db") },
			dirs,
		);
		expect(statSync(join(dirs.home, "server.json")).mode & 0o777).toBe(0o600);
		expect(readServerToken(dirs.home)).toBe(t.server.token);
		expect(statSync(join(dirs.home, "omniloop.db")).mode & 0o777).toBe(0o600);
	});
});

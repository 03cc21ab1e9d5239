import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HostFilterProxy } from "./network-proxy.js";

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const close of closers.splice(0).reverse()) await close();
});

describe("HostFilterProxy", () => {
	it("sends an allowed host's request with that host's Host header, not the client's, and no proxy headers", async () => {
		const seen: { host?: string; auth?: string }[] = [];
		const upstream = createServer((req, res) => {
			seen.push({ host: req.headers.host, auth: req.headers["proxy-authorization"] });
			res.end("ok");
		});
		await new Promise<void>((listening) => upstream.listen(0, "127.0.0.1", listening));
		closers.push(() => new Promise<void>((closed) => upstream.close(() => closed())));
		const port = (upstream.address() as AddressInfo).port;
		const dir = mkdtempSync(join(tmpdir(), "omniloop-proxy-"));
		closers.push(() => rmSync(dir, { recursive: true, force: true }));
		const proxy = await HostFilterProxy.start(join(dir, "proxy.sock"), ["127.0.0.1"]);
		closers.push(() => proxy.close());

		const body = await new Promise<string>((done, fail) => {
			const req = request(
				{
					socketPath: join(dir, "proxy.sock"),
					path: `http://127.0.0.1:${port}/x`,
					headers: { host: "attacker-site.example", "proxy-authorization": "Basic c2VjcmV0" },
				},
				(res) => {
					let text = "";
					res.on("data", (chunk: Buffer) => {
						text += chunk.toString();
					});
					res.on("end", () => done(text));
				},
			);
			req.on("error", fail);
			req.end();
		});
		expect(body).toBe("ok");
		expect(seen).toEqual([{ host: `127.0.0.1:${port}`, auth: undefined }]);
	});
});

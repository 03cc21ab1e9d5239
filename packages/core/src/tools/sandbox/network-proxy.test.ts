import type { LookupAddress } from "node:dns";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ResolveAll } from "./allowed-hosts.js";
import { HostFilterProxy } from "./network-proxy.js";

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const close of closers.splice(0).reverse()) await close();
});

/** A server on the machine's loopback that counts the connections it got. */
async function loopbackServer() {
	let connections = 0;
	const server = createServer((_req, res) => res.end("ok"));
	server.on("connection", () => connections++);
	await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
	closers.push(() => new Promise<void>((closed) => server.close(() => closed())));
	return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

async function proxyFor(hosts: string[], resolve?: ResolveAll) {
	const dir = mkdtempSync(join(tmpdir(), "omniloop-proxy-"));
	closers.push(() => rmSync(dir, { recursive: true, force: true }));
	const socketPath = join(dir, "proxy.sock");
	const proxy = await HostFilterProxy.start(socketPath, hosts, resolve);
	closers.push(() => proxy.close());
	return socketPath;
}

/** Sends `CONNECT authority` and answers the proxy's status line, plus its body when it refused. */
function tunnel(socketPath: string, authority: string): Promise<string> {
	return new Promise((answered, fail) => {
		const socket = connect(socketPath, () =>
			socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
		);
		let text = "";
		socket.on("data", (chunk: Buffer) => {
			text += chunk.toString();
			if (text.startsWith("HTTP/1.1 200") && text.includes("\r\n\r\n")) socket.destroy();
		});
		socket.on("close", () => answered(text.replace(/\r\n(content-type: text\/plain\r\n)?\r\n/, " ")));
		socket.on("error", fail);
	});
}

/** Sends a plain proxy request for `url`; answers its status and body. */
function plainRequest(socketPath: string, url: string): Promise<{ status?: number; text: string }> {
	return new Promise((done, fail) => {
		const req = request({ socketPath, path: url }, (res) => {
			let text = "";
			res.on("data", (chunk: Buffer) => {
				text += chunk.toString();
			});
			res.on("end", () => done({ status: res.statusCode, text }));
		});
		req.on("error", fail);
		req.end();
	});
}

/** A resolver where every name is `address` (a name pointed at the machine, as DNS rebinding does). */
const everyNameIs =
	(address: string): ResolveAll =>
	(_hostname, _options, callback) =>
		callback(null, [{ address, family: 4 } satisfies LookupAddress]);

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
		const proxy = await HostFilterProxy.start(join(dir, "proxy.sock"), [`127.0.0.1:${port}`]);
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

	it("an entry without a port opens only the web's ports of its host: another port is refused, naming it", async () => {
		const upstream = await loopbackServer();
		const refused = await tunnel(await proxyFor(["127.0.0.1"]), `127.0.0.1:${upstream.port}`);
		expect(refused).toMatch(/^HTTP\/1\.1 403 Forbidden /);
		expect(refused).toContain(`port ${upstream.port} of 127.0.0.1 is not allowed`);
		expect(upstream.connections()).toBe(0);
		expect(await tunnel(await proxyFor([`127.0.0.1:${upstream.port}`]), `127.0.0.1:${upstream.port}`)).toMatch(
			/^HTTP\/1\.1 200 /,
		);
		expect(upstream.connections()).toBe(1);
	});

	it("an allowed name that resolves to this machine is refused: the tunnel and the plain request never reach it", async () => {
		const upstream = await loopbackServer();
		const socketPath = await proxyFor([`rebound.example:${upstream.port}`], everyNameIs("127.0.0.1"));
		const refused = await tunnel(socketPath, `rebound.example:${upstream.port}`);
		expect(refused).toMatch(/^HTTP\/1\.1 403 Forbidden /);
		expect(refused).toContain("rebound.example resolves to 127.0.0.1");
		const plain = await plainRequest(socketPath, `http://rebound.example:${upstream.port}/`);
		expect(plain.status).toBe(403);
		expect(plain.text).toContain("resolves to 127.0.0.1");
		// The cloud's metadata address is the machine's own as well (link-local).
		const metadata = await proxyFor(["metadata.example"], everyNameIs("169.254.169.254"));
		expect(await tunnel(metadata, "metadata.example:443")).toContain("resolves to 169.254.169.254");
		expect(upstream.connections()).toBe(0);
	});

	it("an address of the machine written as an IP needs an entry naming the machine, whatever wildcard matches it", async () => {
		const upstream = await loopbackServer();
		const socketPath = await proxyFor([`*.0.1:${upstream.port}`, `*.1:${upstream.port}`]);
		for (const authority of [`127.0.0.1:${upstream.port}`, `[::ffff:127.0.0.1]:${upstream.port}`]) {
			expect(await tunnel(socketPath, authority)).toMatch(/^HTTP\/1\.1 403 Forbidden /);
		}
		expect(upstream.connections()).toBe(0);
	});

	it("a name that resolves to one of the machine's own interfaces (its LAN address) is refused too", async () => {
		const own = Object.values(networkInterfaces())
			.flat()
			.find((a) => a !== undefined && a.family === "IPv4" && !a.internal);
		if (own === undefined) throw new Error("this machine has no IPv4 interface besides loopback");
		const socketPath = await proxyFor(["lan.example"], everyNameIs(own.address));
		expect(await tunnel(socketPath, "lan.example:443")).toContain(`lan.example resolves to ${own.address}`);
		// The same address as an AAAA record, IPv4-mapped in its hex form (`::ffff:c0a8:105`).
		const [a, b, c, d] = own.address.split(".").map(Number) as [number, number, number, number];
		const hex = `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
		const mappedPath = await proxyFor(["lan6.example"], everyNameIs(hex));
		expect(await tunnel(mappedPath, "lan6.example:443")).toContain(`lan6.example resolves to ${hex}`);
	});

	it("a plain request for an https:// (or other) URL is a 400, and the proxy goes on serving", async () => {
		const upstream = await loopbackServer();
		const socketPath = await proxyFor([`127.0.0.1:${upstream.port}`, "127.0.0.1"]);
		for (const url of [`https://127.0.0.1:${upstream.port}/`, "ftp://127.0.0.1/x"]) {
			const answer = await plainRequest(socketPath, url);
			expect(answer.status).toBe(400);
			expect(answer.text).toContain("a plain proxy request must be an http:// URL");
		}
		expect(await plainRequest(socketPath, `http://127.0.0.1:${upstream.port}/`)).toEqual({ status: 200, text: "ok" });
	});

	it("an entry naming the machine (localhost, with its port) reaches it", async () => {
		const upstream = await loopbackServer();
		const socketPath = await proxyFor([`localhost:${upstream.port}`], everyNameIs("127.0.0.1"));
		expect(await tunnel(socketPath, `localhost:${upstream.port}`)).toMatch(/^HTTP\/1\.1 200 /);
		expect(upstream.connections()).toBe(1);
	});
});

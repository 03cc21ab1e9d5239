import { writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startServer, tempDirs } from "./harness.js";

/** A raw socket to the server, connected. */
function open(port: number): Promise<Socket> {
	return new Promise((resolve, reject) => {
		const socket = connect(port, "127.0.0.1", () => resolve(socket));
		socket.once("error", reject);
	});
}

/** Settles when the server has closed the socket (an event, however long the machine takes). */
function closed(socket: Socket): Promise<void> {
	return new Promise((resolve) => {
		if (socket.closed) resolve();
		socket.once("close", () => resolve());
		// A reset is how a refused socket may end; it closes right after.
		socket.on("error", () => {});
		// Read to the end: the server's FIN is an end of stream, which a socket nobody reads may
		// never report, and then never closes.
		socket.resume();
	});
}

/** Sends one keep-alive request on the socket and resolves with the status of its answer. */
function request(socket: Socket, path: string, token?: string): Promise<number> {
	return new Promise((resolve, reject) => {
		let text = "";
		const onData = (chunk: Buffer) => {
			text += chunk.toString("latin1");
			const head = text.indexOf("\r\n\r\n");
			if (head === -1) return;
			const length = Number(/content-length: (\d+)/i.exec(text.slice(0, head))?.[1] ?? 0);
			if (text.length < head + 4 + length) return;
			socket.off("data", onData);
			resolve(Number(text.slice(9, 12)));
		};
		socket.on("data", onData);
		socket.once("close", () => reject(new Error(`the socket closed before the answer to ${path}`)));
		const auth = token === undefined ? "" : `Authorization: Bearer ${token}\r\n`;
		socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n${auth}\r\n`);
	});
}

describe("defence in depth on the socket and at start", () => {
	it("a socket that sends no request head is closed after the headers timeout", async () => {
		const t = await startServer({ server: { headersTimeoutMs: 300 } });
		const silent = await open(t.server.port);
		await closed(silent);
		expect(silent.closed).toBe(true);
	});

	it("caps the sockets that have not shown the token; one that has no longer counts", async () => {
		const t = await startServer({ server: { maxUnauthenticatedSockets: 2 } });
		const first = await open(t.server.port);
		const second = await open(t.server.port);
		// Answered: the server has counted both (healthz needs no token, so they stay unproven).
		expect(await request(first, "/healthz")).toBe(200);
		expect(await request(second, "/healthz")).toBe(200);
		const third = await open(t.server.port);
		await closed(third);
		expect(third.closed).toBe(true);
		// The first proves it holds the token: a new socket fits again.
		expect(await request(first, "/agents", t.server.token)).toBe(200);
		const fourth = await open(t.server.port);
		expect(await request(fourth, "/healthz")).toBe(200);
		for (const socket of [first, second, fourth]) socket.destroy();
	});

	it("a file given as workspaceDir is 400 invalid_body naming the field, not 500", async () => {
		const dirs = tempDirs();
		writeFileSync(join(dirs.root, "notes.txt"), "a file");
		const t = await startServer({}, dirs);
		const response = await t.api("/chat/sessions", { method: "POST", json: { workspaceDir: "notes.txt" } });
		expect(response.status).toBe(400);
		const body = (await response.json()) as { error: { code: string; message: string } };
		expect(body.error).toEqual({
			code: "invalid_body",
			message: `workspaceDir: ${join(dirs.root, "notes.txt")} is a file, not a folder`,
		});
	});

	it("--host other than loopback warns at start, naming what it exposes; loopback says nothing", async () => {
		const notices: string[] = [];
		await startServer({ host: "0.0.0.0", notice: (text) => notices.push(text) });
		expect(notices).toHaveLength(1);
		expect(notices[0]).toMatch(/^warning: listening on 0\.0\.0\.0, which is not a loopback address/);
		expect(notices[0]).toContain("holds the token can use the whole API");
		expect(notices[0]).toContain("read and write the workspace's files and run its shell");
		const quiet: string[] = [];
		await startServer({ host: "127.0.0.1", notice: (text) => quiet.push(text) });
		expect(quiet).toEqual([]);
	});

	it("bound to every address, the URL it prints is one a browser may open: loopback, or the first allowed host", async () => {
		const wide = await startServer({ host: "0.0.0.0", notice: () => {} });
		expect(wide.server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=/);
		const page = await fetch(wide.server.url.replace(/#.*$/, ""));
		expect(page.status).toBe(200);
		const named = await startServer({ host: "0.0.0.0", allowedHosts: ["box.example"], notice: () => {} });
		expect(named.server.url).toMatch(/^http:\/\/box\.example:\d+\/#token=/);
	});
});

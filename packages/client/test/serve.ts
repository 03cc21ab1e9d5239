import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { connect, createServer as createProxy, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ModelAdapter } from "@omniloop/core";
import { createServer } from "@omniloop/server";
import { afterEach } from "vitest";
import { OmniloopClient } from "../src/index.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A Runtime Server on a free port with a fresh home and one workspace root, closed after the test. */
export async function serve(model: ModelAdapter) {
	const base = realpathSync(mkdtempSync(join(tmpdir(), "omniloop-client-")));
	cleanups.push(() => rmSync(base, { recursive: true, force: true }));
	const home = join(base, "home");
	const root = join(base, "work");
	mkdirSync(home);
	mkdirSync(root);
	const server = await createServer({
		port: 0,
		home,
		configDir: root,
		workspaceRoots: [root],
		env: {},
		token: "client-token",
		report: () => {},
		model,
	});
	cleanups.push(() => server.close());
	return { server, root, client: new OmniloopClient({ baseUrl: server.origin, token: server.token }) };
}

/**
 * A TCP proxy in front of `port` whose connections a test can cut (a network drop), and that
 * records what each connection's request said first.
 */
export async function dropProxy(port: number) {
	const open = new Set<Socket>();
	const requests: string[] = [];
	const proxy = createProxy((socket) => {
		const upstream = connect(port, "127.0.0.1");
		open.add(socket);
		socket.once("data", (data: Buffer) => requests.push(data.toString("latin1")));
		socket.pipe(upstream).pipe(socket);
		const close = () => {
			open.delete(socket);
			socket.destroy();
			upstream.destroy();
		};
		socket.on("error", close).on("close", close);
		upstream.on("error", close).on("close", close);
	});
	await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
	cleanups.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
	const address = proxy.address();
	const proxyPort = typeof address === "object" && address !== null ? address.port : 0;
	return {
		origin: `http://127.0.0.1:${proxyPort}`,
		requests,
		/** Cuts every open connection. */
		drop: () => {
			for (const socket of open) socket.destroy();
		},
	};
}

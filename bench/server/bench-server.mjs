// The Runtime Server as the server benches run it: a throwaway home, one token, the bench's own
// model, nothing reported; and the client side they share (authorized JSON requests, Tasks
// started 50 at a time as many clients would).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const TOKEN = "bench-token";

/**
 * A server with `model` on `home` (default a fresh one, removed by `close`; a given one is the
 * caller's, shared by a cluster's processes); `options` adds to or overrides createServer's.
 */
export async function benchServer(model, { home: given, ...options } = {}) {
	// Imported here, not at the top: server-child.mjs's bare mode must not pay for loading the server.
	// BENCH_SERVER_DIST: another build of the server (a copy of an older dist) for an A/B in one run.
	const dist = process.env.BENCH_SERVER_DIST ?? new URL("../../packages/server/dist", import.meta.url).pathname;
	const { createServer } = await import(`${dist}/index.js`);
	const home = given ?? mkdtempSync(join(tmpdir(), "omniloop-bench-"));
	const server = await createServer({
		port: 0,
		home,
		configDir: home,
		workspaceRoots: [home],
		env: {},
		token: TOKEN,
		model,
		report: () => {},
		...options,
	});
	const client = clientOf(server.origin, TOKEN);
	return {
		server,
		...client,
		async close() {
			await server.close();
			if (given === undefined) rmSync(home, { recursive: true, force: true });
		},
	};
}

/** The requests the benches send to a server at `origin`: authorized JSON, Sessions and Task starts. */
export function clientOf(origin, token) {
	const api = (path, init = {}) =>
		fetch(`${origin}${path}`, {
			...init,
			headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
		});
	return {
		api,
		/** `count` Sessions, made one by one; their ids. */
		async createSessions(count) {
			const ids = [];
			for (let i = 0; i < count; i++) {
				const response = await api("/chat/sessions", { method: "POST", body: "{}" });
				ids.push((await response.json()).id);
			}
			return ids;
		},
		/**
		 * A Task started on every Session (`textOf(index)` its prompt), `inFlight` requests at a
		 * time (as that many clients would); a start the server refuses fails the bench.
		 */
		async startTasks(ids, { textOf = () => "go", inFlight = 50 } = {}) {
			const queue = ids.map((id, index) => [id, index]);
			const worker = async () => {
				for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
					const [id, index] = next;
					const response = await api(`/chat/sessions/${id}/messages`, {
						method: "POST",
						headers: { prefer: "respond-async" },
						body: JSON.stringify({ text: textOf(index) }),
					});
					if (response.status !== 202) throw new Error(`start: ${response.status} ${await response.text()}`);
				}
			};
			await Promise.all(Array.from({ length: inFlight }, worker));
		},
	};
}

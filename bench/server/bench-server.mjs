// The Runtime Server as the server benches run it: a throwaway home, one token, the bench's own
// model, nothing reported; and the client side they share (authorized JSON requests, Tasks
// started 50 at a time as many clients would).
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
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
			const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
			const queue = ids.map((id, index) => [id, index]);
			const worker = async () => {
				for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
					const [id, index] = next;
					const { status, text } = await post(`${origin}/chat/sessions/${id}/messages`, token, agent, {
						text: textOf(index),
					});
					if (status !== 202) throw new Error(`start: ${status} ${text}`);
				}
			};
			try {
				await Promise.all(Array.from({ length: inFlight }, worker));
			} finally {
				agent.destroy();
			}
		},
	};
}

/**
 * `clientOf`'s Session and Task requests, sent by start-client.mjs in a process of its own, so
 * the measured server's process pays none of a client's CPU or memory. Forked here, before any
 * clock starts. `startTasks(ids, { big })`: the Session at index `big` gets the prompt "big".
 */
export function remoteClient(origin, token) {
	const child = fork(new URL("./start-client.mjs", import.meta.url).pathname, [origin, token], {
		stdio: ["ignore", "inherit", "inherit", "ipc"],
	});
	const reply = (kind) => new Promise((resolve) => child.on("message", (m) => m.kind === kind && resolve(m)));
	return {
		async createSessions(count) {
			const created = reply("created");
			child.send({ kind: "create", count });
			return (await created).ids;
		},
		async startTasks(ids, { big } = {}) {
			const started = reply("started");
			child.send({ kind: "start", ids, big });
			await started;
		},
		close() {
			child.send({ kind: "stop" });
		},
	};
}

/**
 * A Task's start, sent with node:http on a keep-alive socket, not fetch: on a 2-core machine the
 * client shares the cores with the server it measures, and a cold fetch (undici) costs about twice
 * node:http's CPU a request (884 vs 398 ms for 1,000 starts to a trivial server, client and server
 * in one process), which the start's time then counted as the server's.
 */
function post(url, token, agent, body) {
	const text = JSON.stringify(body);
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{
				method: "POST",
				agent,
				headers: {
					authorization: `Bearer ${token}`,
					"content-type": "application/json",
					"content-length": Buffer.byteLength(text),
					prefer: "respond-async",
				},
			},
			(res) => {
				let reply = "";
				res.setEncoding("utf8");
				res.on("data", (chunk) => {
					reply += chunk;
				});
				res.on("end", () => resolve({ status: res.statusCode, text: reply }));
			},
		);
		req.on("error", reject);
		req.end(text);
	});
}

// What creating a Session and starting a Task cost the server, in CPU time (steady on a busy
// machine), driven as bench/server/server-child.mjs drives it: Sessions made one by one, then
// Tasks started with `Prefer: respond-async`, 50 in flight, from the server's own process.
//   node bench/server/start-cost.mjs [sessions]      (add --cpu-prof to node for a profile)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "../../packages/server/dist/index.js";

const SESSIONS = Number(process.argv[2] ?? 1000);
const TOKEN = "bench-token";

/** A model that idles until its Task is stopped: only the start is measured. */
class IdleModel {
	id = "bench:idle";
	supportsCompaction = false;
	async *streamGenerate(_request, signal) {
		await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
		yield { type: "outcome", outcome: { status: "aborted" } };
	}
}

const home = mkdtempSync(join(tmpdir(), "omniloop-start-cost-"));
const server = await createServer({
	port: 0,
	home,
	configDir: home,
	workspaceRoots: [home],
	env: {},
	token: TOKEN,
	model: new IdleModel(),
	report: () => {},
});
const api = (path, init = {}) =>
	fetch(`${server.origin}${path}`, {
		...init,
		headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...init.headers },
	});
const cpuMs = (since) => {
	const used = process.cpuUsage(since);
	return (used.user + used.system) / 1000;
};

let cpu = process.cpuUsage();
let wall = performance.now();
const ids = [];
for (let i = 0; i < SESSIONS; i++) {
	const response = await api("/chat/sessions", { method: "POST", body: "{}" });
	ids.push((await response.json()).id);
}
const create = { cpuMs: cpuMs(cpu) / SESSIONS, wallMs: (performance.now() - wall) / SESSIONS };

cpu = process.cpuUsage();
wall = performance.now();
const queue = [...ids];
const worker = async () => {
	for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
		const response = await api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			headers: { prefer: "respond-async" },
			body: JSON.stringify({ text: "go" }),
		});
		if (response.status !== 202) throw new Error(`start: ${response.status} ${await response.text()}`);
	}
};
await Promise.all(Array.from({ length: 50 }, worker));
const start = { cpuMs: cpuMs(cpu) / SESSIONS, wallMs: (performance.now() - wall) / SESSIONS };

await server.close();
rmSync(home, { recursive: true, force: true });
const round = (x) => Number(x.toFixed(3));
console.log(
	JSON.stringify({
		sessions: SESSIONS,
		createCpuMs: round(create.cpuMs),
		createWallMs: round(create.wallMs),
		startCpuMs: round(start.cpuMs),
		startWallMs: round(start.wallMs),
	}),
);

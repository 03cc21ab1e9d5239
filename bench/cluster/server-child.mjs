// One `omniloop serve` of the cluster bench, in its own process (its CPU is its own), on the
// shared Postgres and home. Driven over IPC by run.mjs: "create" → Session ids, "start" → Tasks
// begin (on this process), "measure" → CPU and RSS since "start", "stop".
//   node server-child.mjs <database-url> <home> <ratePerSecond> <seconds>
import { setTimeout as sleep } from "node:timers/promises";

const [database, home, rateArg, secondsArg] = process.argv.slice(2);
const RATE = Number(rateArg);
const SECONDS = Number(secondsArg);
const TOKEN = "bench-token";
const DELTA = "lorem ipsum dolor sit amet, consectetur adipiscing elit ";

/** A model that streams `RATE` text deltas a second for `SECONDS`, then stops. */
class PacedModel {
	id = "bench:paced";
	supportsCompaction = false;
	async *streamGenerate(_request, signal) {
		const count = RATE * SECONDS;
		const start = performance.now();
		for (let i = 0; i < count && !signal.aborted; i++) {
			const wait = start + ((i + 1) * 1000) / RATE - performance.now();
			if (wait > 0) await sleep(wait);
			yield { type: "text_delta", delta: DELTA };
		}
		yield { type: "text", text: "(bench text)" };
		yield {
			type: "usage",
			usage: { input: 10, output: count, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 10 + count },
		};
		yield { type: "outcome", outcome: { status: "ok", finishReason: "stop" } };
	}
}

const { createServer } = await import("../../packages/server/dist/index.js");
const server = await createServer({
	port: 0,
	home,
	configDir: home,
	workspaceRoots: [home],
	env: {},
	token: TOKEN,
	database,
	model: new PacedModel(),
	report: (error) => process.stderr.write(`server: ${error}\n`),
});
const api = (path, init = {}) =>
	fetch(`${server.origin}${path}`, {
		...init,
		headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...init.headers },
	});

let cpuStart = process.cpuUsage();
let wallStart = performance.now();
let maxRss = 0;
const rssTimer = setInterval(() => {
	maxRss = Math.max(maxRss, process.memoryUsage().rss);
}, 100);

process.send({ kind: "ready", origin: server.origin, token: TOKEN });
process.on("message", async (message) => {
	if (message.kind === "create") {
		const ids = [];
		for (let i = 0; i < message.count; i++)
			ids.push((await (await api("/chat/sessions", { method: "POST", body: "{}" })).json()).id);
		process.send({ kind: "created", ids });
	} else if (message.kind === "start") {
		cpuStart = process.cpuUsage();
		wallStart = performance.now();
		maxRss = 0;
		const queue = [...message.ids];
		const worker = async () => {
			for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
				const response = await api(`/chat/sessions/${id}/messages`, {
					method: "POST",
					headers: { prefer: "respond-async" },
					body: JSON.stringify({ text: "go" }),
				});
				if (response.status !== 202) process.stderr.write(`start ${id}: ${response.status}\n`);
			}
		};
		await Promise.all(Array.from({ length: 20 }, worker));
		process.send({ kind: "started" });
	} else if (message.kind === "measure") {
		const cpu = process.cpuUsage(cpuStart);
		const wallMs = performance.now() - wallStart;
		process.send({
			kind: "measured",
			cpuPercentOfOneCore: ((cpu.user + cpu.system) / 1000 / wallMs) * 100,
			maxRssMb: Math.max(maxRss, process.memoryUsage().rss) / 1024 / 1024,
		});
	} else if (message.kind === "stop") {
		clearInterval(rssTimer);
		await server.close();
		process.send({ kind: "stopped" });
		process.disconnect();
	}
});

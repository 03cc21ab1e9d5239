// What creating a Session and starting a Task cost the server, in CPU time (steady on a busy
// machine), driven as bench/server/server-child.mjs drives it (both through bench-server.mjs): Sessions made one by one, then
// Tasks started with `Prefer: respond-async`, 50 in flight, from the server's own process.
//   node bench/server/start-cost.mjs [sessions]
// With BENCH_PROFILE=<file>, also writes a CPU profile of the Tasks' starts alone.
// --client-process: the requests come from a process of its own (start-client.mjs), so the figures
// are the server's alone; in-process, fetch's side is about a third of them.
// --process-env: the server reads this process's environment, as a user's does (`omniloop serve`),
// not the empty one the server benches give it: every Task's start reads the environment for the
// values to redact (core's credentialValuesOf).
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { benchServer, remoteClient, TOKEN } from "./bench-server.mjs";

const args = process.argv.slice(2);
const SESSIONS = Number(args.find((arg) => !arg.startsWith("--")) ?? 1000);
const CLIENT_PROCESS = args.includes("--client-process");
const PROCESS_ENV = args.includes("--process-env");

/** A model that idles until its Task is stopped: only the start is measured. */
class IdleModel {
	id = "bench:idle";
	supportsCompaction = false;
	async *streamGenerate(_request, signal) {
		await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
		yield { type: "outcome", outcome: { status: "aborted" } };
	}
}

const bench = await benchServer(new IdleModel(), PROCESS_ENV ? { env: process.env } : {});
const client = CLIENT_PROCESS ? remoteClient(bench.server.origin, TOKEN) : bench;
const cpuMs = (since) => {
	const used = process.cpuUsage(since);
	return (used.user + used.system) / 1000;
};

let cpu = process.cpuUsage();
let wall = performance.now();
const ids = await client.createSessions(SESSIONS);
const create = { cpuMs: cpuMs(cpu) / SESSIONS, wallMs: (performance.now() - wall) / SESSIONS };

const profiler = process.env.BENCH_PROFILE === undefined ? undefined : await startProfiler();
cpu = process.cpuUsage();
wall = performance.now();
await client.startTasks(ids);
const start = { cpuMs: cpuMs(cpu) / SESSIONS, wallMs: (performance.now() - wall) / SESSIONS };
if (profiler !== undefined) writeFileSync(process.env.BENCH_PROFILE, JSON.stringify(await profiler.stop()));

await client.close?.();
await bench.close();
const round = (x) => Number(x.toFixed(3));
console.log(
	JSON.stringify({
		sessions: SESSIONS,
		createCpuMs: round(create.cpuMs),
		createWallMs: round(create.wallMs),
		startCpuMs: round(start.cpuMs),
		startWallMs: round(start.wallMs),
		client: CLIENT_PROCESS ? "own process" : "in process",
		env: PROCESS_ENV ? `this process's (${Object.keys(process.env).length} variables)` : "empty",
	}),
);

/** Profiles this process from now until `stop` (node --cpu-prof would cover the Sessions' creation too). */
async function startProfiler() {
	const inspector = new Session();
	inspector.connect();
	const post = (method, params = {}) =>
		new Promise((resolve, reject) =>
			inspector.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
		);
	await post("Profiler.enable");
	await post("Profiler.setSamplingInterval", { interval: 100 });
	await post("Profiler.start");
	return { stop: async () => (await post("Profiler.stop")).profile };
}

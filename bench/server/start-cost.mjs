// What creating a Session and starting a Task cost the server, in CPU time (steady on a busy
// machine), driven as bench/server/server-child.mjs drives it (both through bench-server.mjs): Sessions made one by one, then
// Tasks started with `Prefer: respond-async`, 50 in flight, from the server's own process.
//   node bench/server/start-cost.mjs [sessions]      (add --cpu-prof to node for a profile)
import { benchServer } from "./bench-server.mjs";

const SESSIONS = Number(process.argv[2] ?? 1000);

/** A model that idles until its Task is stopped: only the start is measured. */
class IdleModel {
	id = "bench:idle";
	supportsCompaction = false;
	async *streamGenerate(_request, signal) {
		await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
		yield { type: "outcome", outcome: { status: "aborted" } };
	}
}

const bench = await benchServer(new IdleModel());
const cpuMs = (since) => {
	const used = process.cpuUsage(since);
	return (used.user + used.system) / 1000;
};

let cpu = process.cpuUsage();
let wall = performance.now();
const ids = await bench.createSessions(SESSIONS);
const create = { cpuMs: cpuMs(cpu) / SESSIONS, wallMs: (performance.now() - wall) / SESSIONS };

cpu = process.cpuUsage();
wall = performance.now();
await bench.startTasks(ids);
const start = { cpuMs: cpuMs(cpu) / SESSIONS, wallMs: (performance.now() - wall) / SESSIONS };

await bench.close();
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

// One measurement in this fresh process; prints one JSON line: {"ms", "cpuMs", "maxRssKb", "counts"}.
// Run by bench/run.mjs after `npm run build`:
//   node bench/workload.mjs <bare|omniloop|omniloop-notrace|pi> <w1|w2> [turns]
//   node bench/workload.mjs <model-raw|model-adapter>
// With BENCH_PROFILE=<file>, also writes a CPU profile of just the timed span.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { expected, w1Script, w2Script } from "./mock.mjs";

const MODEL_DELTAS = 100_000;
const [contender, workload, turnsArg] = process.argv.slice(2);

/** Times `fn`; with BENCH_PROFILE, profiles exactly that span (node --cpu-prof would cover startup too). */
let measuredMs = 0;
let measuredCpuMs = 0;
async function timed(fn) {
	const profile = process.env.BENCH_PROFILE;
	const inspector = profile === undefined ? undefined : new Session();
	if (inspector !== undefined) {
		inspector.connect();
		await post(inspector, "Profiler.enable");
		await post(inspector, "Profiler.setSamplingInterval", { interval: 50 });
		await post(inspector, "Profiler.start");
	}
	const started = performance.now();
	const cpu = process.cpuUsage();
	const result = await fn();
	measuredMs = performance.now() - started;
	const used = process.cpuUsage(cpu);
	measuredCpuMs = (used.user + used.system) / 1000;
	if (inspector !== undefined) {
		const { profile: data } = await post(inspector, "Profiler.stop");
		writeFileSync(profile, JSON.stringify(data));
	}
	return result;
}

function post(session, method, params = {}) {
	return new Promise((resolve, reject) =>
		session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
	);
}

/** The model path: a fake provider in its own process streams deltas over HTTP. */
async function modelPath(reader) {
	const child = spawn(
		process.execPath,
		[new URL("./fake-server-child.mjs", import.meta.url).pathname, String(MODEL_DELTAS)],
		{
			stdio: ["ignore", "pipe", "inherit"],
		},
	);
	try {
		const [chunk] = await once(child.stdout, "data");
		const url = String(chunk).trim();
		const { read } = await import(`./contenders/model-${reader}.mjs`);
		await read(url); // warm-up: connection, JIT
		const chars = await timed(() => read(url));
		return { modelCalls: 1, toolExecutions: 0, chars };
	} finally {
		child.kill("SIGTERM");
	}
}

async function loop() {
	const script = workload === "w1" ? w1Script() : w2Script(Number(turnsArg ?? 200));
	const name = contender === "omniloop-notrace" ? "omniloop" : contender;
	const { run } = await import(`./contenders/${name}.mjs`);
	const counts = await run(script, timed, { trace: contender !== "omniloop-notrace" });
	const want = expected(script);
	for (const key of Object.keys(want)) {
		if (counts[key] !== want[key])
			throw new Error(`${contender} ${workload}: ${key} ${counts[key]}, expected ${want[key]}`);
	}
	return counts;
}

const counts = contender.startsWith("model-") ? await modelPath(contender.slice(6)) : await loop();
const result = { ms: measuredMs, cpuMs: measuredCpuMs, maxRssKb: process.resourceUsage().maxRSS, counts };
process.stdout.write(`${JSON.stringify(result)}\n`);

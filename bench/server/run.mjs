// npm run bench:server — N concurrent streaming Sessions, each with its own SSE viewer, against a
// bare node:http SSE server sending the same frames at the same rate, in the same run. Plus one
// viewer that never reads, which must be cut off while the others keep their latency.
// BENCH_SESSIONS (1000), BENCH_RATE (messages/s per Session, 20), BENCH_SECONDS (10).
// BENCH_PROFILE=<bare|floor|omniloop>: that server runs with --cpu-prof (bench/server/profiles/);
// with BENCH_NO_INLINING=1 also --no-turbo-inlining, so each function's self time is its own.
// Prints every target of issue #28 as met or MISS with its figure; exits non-zero on a miss only with --strict.
import { fork } from "node:child_process";
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { remoteClient } from "./bench-server.mjs";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const here = new URL(".", import.meta.url).pathname;
/** --strict: exit 1 when a target is missed (CI-style); by default a miss is printed, not failed. */
const STRICT = process.argv.includes("--strict");

/**
 * One viewer: reads frames, takes latency from each message's ts, checks seqs for gaps and repeats,
 * counts what it got (`state.count`). `state.connected` settles once the server answered its request.
 */
function watch(url, token, stats, onEnd) {
	let connected;
	const state = { last: undefined, done: false, count: 0, connected: new Promise((resolve) => (connected = resolve)) };
	const req = request(url, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
		connected();
		let buffer = "";
		res.setEncoding("utf8");
		res.on("data", (chunk) => {
			buffer += chunk;
			let end = buffer.indexOf("\n\n");
			while (end !== -1) {
				const frame = buffer.slice(0, end);
				buffer = buffer.slice(end + 2);
				end = buffer.indexOf("\n\n");
				if (!frame.startsWith("id: ")) continue;
				const now = Date.now();
				const seq = Number(/^id: (\d+)/.exec(frame)[1]);
				const ts = Number(/"ts":(\d+)/.exec(frame)[1]);
				stats.latencies.push(now - ts);
				if (ts >= steadyFrom) stats.steady.push(now - ts);
				stats.messages++;
				state.count++;
				if (state.last !== undefined) {
					if (seq <= state.last) stats.duplicated++;
					else if (seq > state.last + 1) stats.lost += seq - state.last - 1;
				}
				state.last = Math.max(state.last ?? seq, seq);
				if (frame.includes('"type":"done"') && !state.done) {
					state.done = true;
					onEnd();
				}
			}
		});
		res.on("end", () => {
			if (!state.done) {
				state.done = true;
				onEnd();
			}
		});
	});
	// A viewer the server refused is not waited for: it ends short.
	req.on("error", () => connected());
	req.end();
	return { req, state };
}

/** A viewer that sends its request and never reads a byte back; resolves when the server cuts it off. */
function stall(url, token) {
	const { hostname, port, pathname } = new URL(url);
	return new Promise((resolve) => {
		const socket = connect(Number(port), hostname, () => {
			socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
			socket.pause();
		});
		socket.on("error", () => {});
		socket.on("close", () => resolve(performance.now()));
	});
}

/**
 * The client that starts every Session's Task, in a process of its own (start-client.mjs), forked
 * before the clock starts; `start` resolves once every Task is started.
 */
function taskStarter({ origin, ids }, token) {
	const client = remoteClient(origin, token);
	return {
		async start() {
			await client.startTasks(ids, { big: SESSIONS });
			client.close();
		},
	};
}

/** When every Task had started (wall clock, like the messages' ts): from then on is the steady state. */
let steadyFrom = Number.POSITIVE_INFINITY;

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

async function runOne(mode) {
	const inlining = process.env.BENCH_NO_INLINING === "1" ? ["--no-turbo-inlining"] : [];
	const profile =
		process.env.BENCH_PROFILE === mode ? ["--cpu-prof", `--cpu-prof-dir=${here}profiles`, ...inlining] : [];
	const child = fork(`${here}server-child.mjs`, [mode, String(SESSIONS), String(RATE), String(SECONDS)], {
		stdio: ["ignore", "inherit", "inherit", "ipc"],
		execArgv: profile,
	});
	const next = (kind) => new Promise((resolve) => child.on("message", (m) => m.kind === kind && resolve(m)));
	const ready = await next("ready");
	const stats = { latencies: [], steady: [], messages: 0, lost: 0, duplicated: 0 };
	let ended = 0;
	let allEnded;
	const finished = new Promise((resolve) => {
		allEnded = resolve;
	});
	const viewers = ready.urls.slice(0, SESSIONS).map((url) =>
		watch(url, ready.token, stats, () => {
			if (++ended === SESSIONS) allEnded();
		}),
	);
	const cutAt = stall(ready.urls[SESSIONS], ready.token);
	const starter = ready.tasks === undefined ? undefined : taskStarter(ready.tasks, ready.token);
	// Every viewer's stream is open before any Task starts: a viewer that connected late would miss
	// its Task's first messages without a gap in seq to show it (counted below as short).
	await Promise.all(viewers.map((viewer) => viewer.state.connected));
	await new Promise((r) => setTimeout(r, 1000));
	const started = performance.now();
	steadyFrom = Number.POSITIVE_INFINITY;
	const clientCpu = process.cpuUsage();
	child.send({ kind: "start" });
	await next("started");
	// The Tasks are started by a client of their own (server-child.mjs says why), not from here,
	// where the viewers' latencies are taken: its requests would delay their reads.
	await starter?.start();
	const startupS = (performance.now() - started) / 1000;
	steadyFrom = Date.now();
	const timeout = new Promise((r) => setTimeout(r, (SECONDS + 30) * 1000));
	await Promise.race([finished, timeout]);
	const elapsed = (performance.now() - started) / 1000;
	const clientCpuUsage = process.cpuUsage(clientCpu);
	const clientCpuPercentOfOneCore = ((clientCpuUsage.user + clientCpuUsage.system) / 1000 / (elapsed * 1000)) * 100;
	child.send({ kind: "measure" });
	const report = await next("measured");
	// The stalled viewer gets its stall timeout (2 s) and a little more after the others finished.
	const cut = await Promise.race([cutAt, new Promise((r) => setTimeout(() => r(undefined), 3000))]);
	child.send({ kind: "stop" });
	const final = await next("report");
	for (const viewer of viewers) viewer.req.destroy();
	// Every Session streams the same Task, so every viewer must have had as many messages as the most any had.
	const counts = viewers.map((viewer) => viewer.state.count);
	const most = Math.max(...counts);
	const short = counts.filter((count) => count < most).length;
	const sorted = stats.latencies.sort((a, b) => a - b);
	return {
		mode,
		sessions: SESSIONS,
		rate: RATE,
		viewersFinished: ended,
		messages: stats.messages,
		deliveredPerSecond: Math.round(stats.messages / elapsed),
		p50: quantile(sorted, 0.5),
		p99: quantile(sorted, 0.99),
		p99Steady: quantile(
			stats.steady.sort((a, b) => a - b),
			0.99,
		),
		max: sorted.at(-1),
		lost: stats.lost,
		duplicated: stats.duplicated,
		messagesPerViewer: most,
		shortViewers: short,
		cpuPercentOfTwoCores: Math.round(report.cpuPercentOfTwoCores),
		cpuMs: Math.round(report.cpuMs),
		clientCpuPercentOfOneCore: Math.round(clientCpuPercentOfOneCore),
		startupS: Math.round(startupS * 100) / 100,
		elapsedS: Math.round(elapsed * 10) / 10,
		maxRssMb: Math.round(report.maxRssMb),
		heapUsedMb: Math.round(report.heapUsedMb),
		heapTotalMb: Math.round(report.heapTotalMb),
		externalMb: Math.round(report.externalMb),
		// The client cannot see the cut (it reads nothing, so not the FIN either): the server's counter says when.
		stalledViewerCutAfterS:
			final.stalledViewerCutAfterS != null
				? Math.round(final.stalledViewerCutAfterS * 10) / 10
				: cut === undefined
					? null
					: Math.round((cut - started) / 100) / 10,
		stalledViewersCut: final.stalledViewersCut,
	};
}

const bare = await runOne("bare");
const floor = await runOne("floor");
const omniloop = await runOne("omniloop");
const cpuRatioOf = (r) => r.cpuPercentOfTwoCores / Math.max(1, bare.cpuPercentOfTwoCores);
const deliveredRatioOf = (r) => r.deliveredPerSecond / Math.max(1, bare.deliveredPerSecond);
const cpuRatio = cpuRatioOf(omniloop);
const deliveredRatio = deliveredRatioOf(omniloop);
/** CPU time the server spent per message it delivered, in µs: steadier than a percentage on a busy machine. */
const cpuUsPerMessage = (r) => Math.round((r.cpuMs * 1000) / Math.max(1, r.messages));
/** The targets (#28): [target, met, the figure it was judged on]. */
const goals = [
	[
		`${SESSIONS} Sessions start in < 1 s`,
		omniloop.startupS < 1,
		`${omniloop.startupS} s (the floor: ${floor.startupS} s)`,
	],
	[
		"p99 delivery latency < 50 ms",
		omniloop.p99 < 50,
		`${omniloop.p99} ms (${omniloop.p99Steady} ms once all Tasks started; bare ${bare.p99} ms)`,
	],
	[
		"delivered/s ≥ 90% of the bare server's",
		deliveredRatio >= 0.9,
		`${omniloop.deliveredPerSecond} vs ${bare.deliveredPerSecond}: ${Math.round(deliveredRatio * 100)}% (the floor: ${Math.round(deliveredRatioOf(floor) * 100)}%)`,
	],
	[
		"server CPU ≤ 1.3× the bare server's",
		cpuRatio <= 1.3,
		`${omniloop.cpuPercentOfTwoCores}% vs ${bare.cpuPercentOfTwoCores}%: ${cpuRatio.toFixed(2)}× (${cpuUsPerMessage(omniloop)} vs ${cpuUsPerMessage(bare)} µs of CPU a delivered message; the floor: ${cpuRatioOf(floor).toFixed(2)}×, ${cpuUsPerMessage(floor)} µs)`,
	],
	[
		"RSS < 200 MB",
		omniloop.maxRssMb < 200,
		`${omniloop.maxRssMb} MB (bare ${bare.maxRssMb} MB, the floor ${floor.maxRssMb} MB)`,
	],
	[
		"0 lost, 0 duplicated seq; every viewer got all its Task's messages",
		omniloop.lost === 0 && omniloop.duplicated === 0 && omniloop.shortViewers === 0,
		`${omniloop.lost} / ${omniloop.duplicated}; ${omniloop.shortViewers} viewers short of ${omniloop.messagesPerViewer} messages`,
	],
	["every viewer got its done", omniloop.viewersFinished === SESSIONS, `${omniloop.viewersFinished}/${SESSIONS}`],
	[
		"the stalled viewer is cut off (stall timeout 2 s)",
		omniloop.stalledViewerCutAfterS !== null,
		omniloop.stalledViewerCutAfterS === null ? "not cut" : `cut ${omniloop.stalledViewerCutAfterS} s after the start`,
	],
];
console.log(`\n${SESSIONS} Sessions × ${RATE} messages/s for ${SECONDS} s, one SSE viewer each (+1 stalled viewer)\n`);
console.log(
	"| server | Tasks started in | delivered/s | p50 ms | p99 ms | p99 once all started | max ms | CPU (of 2 cores) | CPU µs/message | RSS MB | lost | dup |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const r of [bare, floor, omniloop]) {
	console.log(
		`| ${r.mode} | ${r.startupS} s | ${r.deliveredPerSecond} | ${r.p50} | ${r.p99} | ${r.p99Steady} | ${r.max} | ${r.cpuPercentOfTwoCores}% | ${cpuUsPerMessage(r)} | ${r.maxRssMb} | ${r.lost} | ${r.duplicated} |`,
	);
}
console.log(
	"\nThe floor: the same model read through omniloop's two interfaces (an async iterable relayed by an async iterator), each message given its id, ts and seq, kept in a replay window and written as it comes; Tasks started over HTTP with a token, as omniloop's are (bench/server/floor-server.mjs). No server built on those interfaces goes below it.",
);
console.log("\nTargets (issue #28; the bare node:http server sends the same frames at the same rate):");
for (const [goal, met, value] of goals) console.log(`${met ? "met " : "MISS"}  ${goal}: ${value}`);
const missed = goals.filter(([, met]) => !met).length;
console.log(
	`\n${goals.length - missed} of ${goals.length} targets met${missed > 0 && !STRICT ? " (--strict makes a miss fail)" : ""}`,
);
writeFileSync(
	`${here}results.json`,
	`${JSON.stringify({ date: new Date().toISOString(), sessions: SESSIONS, rate: RATE, seconds: SECONDS, bare, floor, omniloop, cpuRatio, goals }, null, 2)}\n`,
);
if (STRICT && missed > 0) process.exitCode = 1;

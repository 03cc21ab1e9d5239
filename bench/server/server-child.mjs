// One server under load, in its own process so its CPU and RSS are its own. Driven over IPC by
// run.mjs: "ready" → the URLs to watch (and, for omniloop, the Sessions to start), "start" → the
// clock starts and the streams begin, "stop" → CPU/RSS report. omniloop's Sessions are made and
// its Tasks started over HTTP by clients in processes of their own (start-client.mjs), as clients
// would: a client in this process would count its own CPU and memory as the server's (about
// 0.7 ms a start; fetch's code and heap, about 30 MB of RSS), which the other servers never pay.
//   node server-child.mjs omniloop <sessions> <ratePerSecond> <seconds>
//   node server-child.mjs bare     <sessions> <ratePerSecond> <seconds>
//   node server-child.mjs floor    <sessions> <ratePerSecond> <seconds>   (floor-server.mjs)
import { createServer as createHttpServer } from "node:http";
import { benchServer, remoteClient, TOKEN } from "./bench-server.mjs";
import { floorServer } from "./floor-server.mjs";
import { DELTA, PacedModel } from "./paced-model.mjs";

const [mode, sessionsArg, rateArg, secondsArg] = process.argv.slice(2);
const SESSIONS = Number(sessionsArg);
const RATE = Number(rateArg);
const SECONDS = Number(secondsArg);
/** The extra stalled viewer's Session streams big deltas, so its socket buffers fill within seconds. */
const BIG_DELTA = "x".repeat(Number(process.env.BENCH_STALLED_KB ?? 128) * 1024);
const bigFor = (request) => request.messages.some((m) => m.type === "user_text" && m.text === "big");

let cpuStart;
let cutAfterS;
let stopPolling = () => {};
let wallStart;
let maxRss = 0;
const rssTimer = setInterval(() => {
	maxRss = Math.max(maxRss, process.memoryUsage().rss);
}, 100);

function report(extra = {}) {
	const cpu = process.cpuUsage(cpuStart);
	const wallMs = performance.now() - wallStart;
	return {
		cpuMs: (cpu.user + cpu.system) / 1000,
		cpuPercentOfTwoCores: ((cpu.user + cpu.system) / 1000 / wallMs / 2) * 100,
		maxRssMb: Math.max(maxRss, process.memoryUsage().rss) / 1024 / 1024,
		heapUsedMb: process.memoryUsage().heapUsed / 1024 / 1024,
		heapTotalMb: process.memoryUsage().heapTotal / 1024 / 1024,
		externalMb: process.memoryUsage().external / 1024 / 1024,
		...extra,
	};
}

async function omniloop() {
	// Every viewer connects at once, before any has sent its token: past the default cap of 64
	// unauthenticated sockets (README: Security) the server resets them, as it should a flood.
	const model = new PacedModel({
		rate: RATE,
		seconds: SECONDS,
		deltaOf: (request) => (bigFor(request) ? BIG_DELTA : DELTA),
	});
	const bench = await benchServer(model, {
		server: { stallTimeoutMs: 2000, maxUnauthenticatedSockets: SESSIONS + 64 },
	});
	const { server, api } = bench;
	// Made by a client in a process of its own, as the Tasks are started: made from here, fetch's
	// code and heap counted in the server's RSS (152 MB once they were made, 119 MB without).
	const client = remoteClient(server.origin, TOKEN);
	const ids = await client.createSessions(SESSIONS + 1);
	client.close();
	return {
		urls: ids.map((id) => `${server.origin}/chat/sessions/${id}/events`),
		/** What run.mjs starts: every Session, the last one (the stalled viewer's) with big deltas. */
		tasks: { origin: server.origin, ids },
		async start() {
			// When the stalled viewer is cut off, seen from the server's own counter.
			const startedAt = performance.now();
			const poll = setInterval(async () => {
				const text = await (await api("/metrics")).text();
				if (/omniloop_sse_viewers_cut_total\{reason="stalled"\} [1-9]/.test(text) && cutAfterS === undefined) {
					cutAfterS = (performance.now() - startedAt) / 1000;
					clearInterval(poll);
				}
			}, 200);
			stopPolling = () => clearInterval(poll);
		},
		async stop() {
			stopPolling();
			const metrics = await (await api("/metrics")).text();
			const cut = Number(/omniloop_sse_viewers_cut_total\{reason="stalled"\} (\d+)/.exec(metrics)?.[1] ?? 0);
			await bench.close();
			return { stalledViewersCut: cut, stalledViewerCutAfterS: cutAfterS ?? null };
		},
	};
}

async function bare() {
	const streams = [];
	let started = false;
	const server = createHttpServer((req, res) => {
		const index = Number(req.url.split("/").at(-1));
		res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
		res.flushHeaders();
		streams.push({ res, index });
		if (started) pace(res, index);
	});
	await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address();
	let seqs = 0;
	function pace(res, index) {
		const count = RATE * SECONDS;
		let seq = 0;
		let sent = 0;
		const start = performance.now();
		const tick = () => {
			if (sent >= count || res.destroyed) return res.end();
			seq++;
			sent++;
			seqs++;
			const message = {
				id: "m",
				ts: Date.now(),
				seq,
				type: "partial_text",
				delta: index === SESSIONS ? BIG_DELTA : DELTA,
			};
			res.write(`id: ${seq}\ndata: ${JSON.stringify(message)}\n\n`);
			setTimeout(tick, Math.max(0, start + ((sent + 1) * 1000) / RATE - performance.now()));
		};
		setTimeout(tick, 1000 / RATE);
	}
	return {
		urls: Array.from({ length: SESSIONS + 1 }, (_, i) => `http://127.0.0.1:${port}/s/${i}`),
		async start() {
			started = true;
			for (const { res, index } of streams) pace(res, index);
		},
		async stop() {
			for (const { res } of streams) res.destroy();
			server.close();
			return { framesWritten: seqs };
		},
	};
}

const floor = () =>
	floorServer({
		sessions: SESSIONS,
		rate: RATE,
		seconds: SECONDS,
		token: TOKEN,
		deltaOf: (text) => (text === "big" ? BIG_DELTA : DELTA),
	});
const subject = mode === "omniloop" ? await omniloop() : mode === "floor" ? await floor() : await bare();
process.send({ kind: "ready", urls: subject.urls, tasks: subject.tasks, token: TOKEN });
process.on("message", async (message) => {
	if (message.kind === "start") {
		cpuStart = process.cpuUsage();
		wallStart = performance.now();
		maxRss = 0;
		await subject.start();
		process.send({ kind: "started" });
	} else if (message.kind === "measure") {
		process.send({ kind: "measured", ...report() });
	} else if (message.kind === "stop") {
		const extra = await subject.stop();
		clearInterval(rssTimer);
		process.send({ kind: "report", ...extra });
		// Leave through the event loop's end, so a --cpu-prof profile is written.
		process.disconnect();
		setTimeout(() => process.exit(0), 2000).unref();
	}
});

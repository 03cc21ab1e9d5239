// npm run bench:cluster — three `omniloop serve` processes on one Postgres. N Sessions, their
// Tasks spread over the processes; each Session's viewer is on a different process than its Task,
// so every message crosses the database (event log + LISTEN/NOTIFY). Reports throughput, latency
// from the model's event (its ts) to the viewer, lost/duplicated seqs, each process's CPU and
// Postgres' CPU. BENCH_SESSIONS (150), BENCH_RATE (deltas/s per Session, 20), BENCH_SECONDS (10);
// BENCH_DATABASE_URL uses an existing database, else a throwaway Postgres is started (BENCH_PG_OPTIONS).
import { fork } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startThrowawayPostgres } from "../../scripts/throwaway-postgres.mjs";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 150);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PROCESSES = 3;
const here = new URL(".", import.meta.url).pathname;
/**
 * A throwaway Postgres (scripts/throwaway-postgres.mjs, as the tests start theirs) with default
 * settings, fsync on: what is measured is a real database's cost. BENCH_PG_OPTIONS adds settings
 * (`name=value …`, a leading `-c` each allowed).
 */
function startPostgres() {
	const extra = (process.env.BENCH_PG_OPTIONS ?? "").split(/\s+/).filter((word) => word !== "" && word !== "-c");
	return startThrowawayPostgres({ settings: ["max_connections=200", ...extra], prefix: "omniloop-bench-pg-" });
}

/**
 * CPU seconds (user + system) of Postgres, from /proc. With the bench's own throwaway Postgres
 * (its port given): that cluster's postmaster (the postgres process started with `-p <port>`),
 * the children it has reaped (its cutime/cstime: backends and autovacuum workers gone meanwhile)
 * and its live children; another Postgres on the machine (another bench's, a test's) is not
 * counted. Without a port (BENCH_DATABASE_URL): every process named postgres, as before.
 */
function postgresCpuSeconds(port) {
	const processes = [];
	for (const pid of readdirSync("/proc")) {
		if (!/^\d+$/.test(pid)) continue;
		try {
			const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
			const close = stat.lastIndexOf(")");
			if (stat.slice(stat.indexOf("(") + 1, close) !== "postgres") continue;
			// Fields after the name: state, ppid, …, utime (11), stime (12), cutime (13), cstime (14).
			const fields = stat.slice(close + 2).split(" ");
			processes.push({ pid, ppid: fields[1], fields });
		} catch {}
	}
	const own = (fields, reaped) =>
		Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0);
	if (port === undefined) return processes.reduce((sum, p) => sum + own(p.fields, false), 0) / 100;
	const postmaster = processes.find((p) => {
		try {
			const args = readFileSync(`/proc/${p.pid}/cmdline`, "utf8").split("\0");
			return args.some((arg, i) => arg === "-p" && args[i + 1] === port);
		} catch {
			return false;
		}
	});
	if (postmaster === undefined) throw new Error(`no postmaster with -p ${port} in /proc`);
	let ticks = own(postmaster.fields, true);
	for (const p of processes) if (p.ppid === postmaster.pid) ticks += own(p.fields, false);
	return ticks / 100;
}

function child(database, home) {
	const proc = fork(`${here}server-child.mjs`, [database, home, String(RATE), String(SECONDS)], {
		stdio: ["ignore", "inherit", "inherit", "ipc"],
	});
	const waiters = new Map();
	proc.on("message", (m) => {
		waiters.get(m.kind)?.(m);
		waiters.delete(m.kind);
	});
	const next = (kind) => new Promise((resolve) => waiters.set(kind, resolve));
	return {
		ready: next("ready"),
		ask(message, answer) {
			const reply = next(answer);
			proc.send(message);
			return reply;
		},
	};
}

/** A viewer of one Session's events: latency from each message's ts, gaps and repeats of seq. */
function watch(url, token, stats) {
	return new Promise((connected) => {
		const state = { last: undefined };
		let resolveDone;
		const done = new Promise((r) => {
			resolveDone = r;
		});
		const req = request(url, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
			connected({ done, close: () => req.destroy() });
			let buffer = "";
			res.setEncoding("utf8");
			res.on("data", (chunk) => {
				buffer += chunk;
				for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
					const frame = buffer.slice(0, end);
					buffer = buffer.slice(end + 2);
					if (!frame.startsWith("id: ")) continue;
					const seq = Number(/^id: (\d+)/.exec(frame)[1]);
					const ts = Number(/"ts":(\d+)/.exec(frame)[1]);
					stats.latencies.push(Date.now() - ts);
					if (ts >= steadyFrom) stats.steady.push(Date.now() - ts);
					stats.messages++;
					if (state.last !== undefined) {
						if (seq <= state.last) stats.duplicated++;
						else if (seq > state.last + 1) stats.lost += seq - state.last - 1;
					}
					state.last = Math.max(state.last ?? seq, seq);
					if (frame.includes('"type":"done"')) resolveDone();
				}
			});
		});
		req.on("error", () => resolveDone());
		req.end();
	});
}

/** When every Task had started (wall clock, like the messages' ts): from then on is the steady state. */
let steadyFrom = Number.POSITIVE_INFINITY;

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const postgres = process.env.BENCH_DATABASE_URL ? undefined : await startPostgres();
const database = process.env.BENCH_DATABASE_URL ?? postgres.url;
const postgresPort = postgres === undefined ? undefined : new URL(postgres.url).port;
const home = mkdtempSync(join(tmpdir(), "omniloop-bench-cluster-"));
try {
	const children = Array.from({ length: PROCESSES }, () => child(database, home));
	const ready = await Promise.all(children.map((c) => c.ready));
	const owned = await Promise.all(
		children.map((c, k) =>
			c.ask(
				{ kind: "create", count: Math.floor(SESSIONS / PROCESSES) + (k < SESSIONS % PROCESSES ? 1 : 0) },
				"created",
			),
		),
	);
	const stats = { latencies: [], steady: [], messages: 0, lost: 0, duplicated: 0 };
	// Session of process k is watched on process k+1: every message crosses the database.
	const viewers = await Promise.all(
		owned.flatMap(({ ids }, k) => {
			const viewer = ready[(k + 1) % PROCESSES];
			return ids.map((id) => watch(`${viewer.origin}/chat/sessions/${id}/events`, viewer.token, stats));
		}),
	);
	const cpuBefore = postgresCpuSeconds(postgresPort);
	const started = performance.now();
	await Promise.all(children.map((c, k) => c.ask({ kind: "start", ids: owned[k].ids }, "started")));
	steadyFrom = Date.now();
	const startedInS = (performance.now() - started) / 1000;
	const timeout = new Promise((r) => setTimeout(r, (SECONDS + 60) * 1000));
	await Promise.race([Promise.all(viewers.map((v) => v.done)), timeout]);
	const wallS = (performance.now() - started) / 1000;
	const postgresCpu = ((postgresCpuSeconds(postgresPort) - cpuBefore) / wallS) * 100;
	const processes = await Promise.all(children.map((c) => c.ask({ kind: "measure" }, "measured")));
	for (const v of viewers) v.close();
	await Promise.all(children.map((c) => c.ask({ kind: "stop" }, "stopped")));
	const sorted = stats.latencies.sort((a, b) => a - b);
	const steady = stats.steady.sort((a, b) => a - b);
	const result = {
		processes: PROCESSES,
		sessions: SESSIONS,
		ratePerSession: RATE,
		seconds: SECONDS,
		wallS: Number(wallS.toFixed(1)),
		messagesDelivered: stats.messages,
		throughputPerS: Math.round(stats.messages / wallS),
		lost: stats.lost,
		duplicated: stats.duplicated,
		tasksStartedInS: Number(startedInS.toFixed(1)),
		latencyOnceAllStartedMs: { p50: quantile(steady, 0.5), p99: quantile(steady, 0.99) },
		latencyMs: {
			p50: quantile(sorted, 0.5),
			p90: quantile(sorted, 0.9),
			p99: quantile(sorted, 0.99),
			max: sorted.at(-1),
		},
		serverCpuPercentOfOneCore: processes.map((p) => Math.round(p.cpuPercentOfOneCore)),
		serverMaxRssMb: processes.map((p) => Math.round(p.maxRssMb)),
		postgresCpuPercentOfOneCore: Math.round(postgresCpu),
	};
	process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
	rmSync(home, { recursive: true, force: true });
	postgres?.stop();
}
process.exit(0);

// npm run bench:redaction: the CPU cost of credential redaction per streamed delta, the way a
// Task's context applies it (docs/security.md): every fragment through PartialRedaction.pass,
// every forwarded (subagent) fragment through the redactor, with 0, 3 and 20 known values.
// CPU time (process.cpuUsage), not wall, so a busy machine does not move the figures much;
// the median of BENCH_RUNS (5) runs of BENCH_DELTAS (100,000) deltas each.
// Not public API (docs/api.md): the engine's own module, straight from the build.
import { PartialRedaction, redactor } from "../packages/core/dist/messages/redaction.js";

const DELTAS = Number(process.env.BENCH_DELTAS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

/** Key-shaped values of the lengths providers hand out (Anthropic's 108, OpenAI's 164, 40-hex tokens). */
function secretsOf(count) {
	const shapes = [
		(n) => `sk-ant-api03-${"a".repeat(84)}${String(n).padStart(11, "0")}`,
		(n) => `sk-proj-${"b".repeat(145)}${String(n).padStart(11, "0")}`,
		(n) => `${"0123456789abcdef".repeat(2)}${String(n).padStart(8, "0")}`,
	];
	return Array.from({ length: count }, (_, n) => shapes[n % shapes.length](n));
}

/** Model output in delta-sized pieces (1 to 24 characters): prose and code, with s, k and - in it. */
function deltasOf(count) {
	const prose =
		"Sure - I'll ask the tool to list the files. const sk = await fetch(url, { headers }); " +
		"this seems to work; let's check the tests and the keys of the map next. ";
	const pieces = [];
	let at = 0;
	for (let i = 0; i < count; i++) {
		const length = 1 + ((i * 7) % 24);
		pieces.push(prose.slice(at, at + length) || prose.slice(0, length));
		at = (at + length) % prose.length;
	}
	return pieces;
}

function cpuMs(run) {
	const start = process.cpuUsage();
	run();
	const used = process.cpuUsage(start);
	return (used.user + used.system) / 1000;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const pieces = deltasOf(DELTAS);
const rows = [];
for (const count of [0, 3, 20]) {
	const secrets = secretsOf(count);
	const passMs = [];
	const forwardMs = [];
	for (let run = 0; run < RUNS; run++) {
		passMs.push(
			cpuMs(() => {
				const fragments = new PartialRedaction(secrets);
				for (let i = 0; i < pieces.length; i++) {
					// A message of 50 deltas, then its complete message releases what was held.
					const id = `m${Math.floor(i / 50)}`;
					fragments.pass({ id, ts: 0, seq: i, type: "partial_text", delta: pieces[i] });
					if (i % 50 === 49) fragments.release(id);
				}
			}),
		);
		forwardMs.push(
			cpuMs(() => {
				const redact = redactor(secrets);
				for (let i = 0; i < pieces.length; i++) {
					redact({ id: "m", ts: 0, seq: i, type: "partial_text", delta: pieces[i] });
				}
			}),
		);
	}
	const perDelta = (ms) => `${((median(ms) * 1000) / DELTAS).toFixed(3)} µs`;
	rows.push({ secrets: count, pass: perDelta(passMs), forward: perDelta(forwardMs) });
}
console.log(`${DELTAS} deltas, median CPU of ${RUNS} runs, per delta:`);
console.table(rows);

// npm run bench: every workload in fresh processes, the median of 5 runs each, against its
// baseline in the same run. Prints a table and writes bench/results.json.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const here = new URL(".", import.meta.url).pathname;

/** One fresh process, one measurement. */
function measure(workload, turns) {
	const args = [`${here}workload.mjs`, workload, ...(turns === undefined ? [] : [String(turns)])];
	return JSON.parse(execFileSync(process.execPath, args, { encoding: "utf8" }).trim().split("\n").at(-1));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs a workload and its baseline alternately, so load on the machine falls on both alike. */
function compare(baseline, subject) {
	const base = [];
	const runs = [];
	for (let i = 0; i < RUNS; i++) {
		base.push(measure(...baseline));
		runs.push(measure(...subject));
	}
	const stats = (xs) => ({
		ms: median(xs.map((x) => x.ms)),
		maxRssKb: median(xs.map((x) => x.maxRssKb)),
		count: xs[0].count,
	});
	return { baseline: stats(base), subject: stats(runs) };
}

const rows = [];
function row(name, baseline, subject, target, rssTarget) {
	const result = compare(baseline, subject);
	const ratio = result.subject.ms / result.baseline.ms;
	const rss = result.subject.maxRssKb / result.baseline.maxRssKb;
	rows.push({
		name,
		baseline: baseline.join(" "),
		subject: subject.join(" "),
		baselineMs: round(result.baseline.ms),
		subjectMs: round(result.subject.ms),
		ratio: round(ratio, 2),
		target,
		met: ratio <= target && (rssTarget === undefined || rss <= rssTarget),
		rssRatio: round(rss, 2),
		rssTarget,
		messages: result.subject.count,
	});
}

const round = (x, digits = 1) => Number(x.toFixed(digits));

row("W1: 100,000 text deltas, one turn", ["w1-bare"], ["w1-engine"], 1.2, 1.3);
row("W2: 200 turns, 8 deltas + 4 tool calls each", ["w2-bare", 200], ["w2-engine", 200], 2.0, 1.3);
row("W2 with the Trace vs without", ["w2-engine-notrace", 200], ["w2-engine", 200], 1.2);
row("Model path: adapter vs raw fetch + eventsource-parser", ["model-raw"], ["model-adapter"], 2.0);

// Growth: the engine's cost per turn at 50, 200 and 400 turns; linear means roughly flat.
const growth = [50, 200, 400].map((turns) => {
	const result = compare(["w2-bare", turns], ["w2-engine", turns]);
	return {
		turns,
		engineMs: round(result.subject.ms),
		bareMs: round(result.baseline.ms),
		engineMsPerTurn: round(result.subject.ms / turns, 3),
	};
});
const perTurn = growth.map((g) => g.engineMsPerTurn);
const growthRatio = round(perTurn[2] / perTurn[0], 2);

console.log(
	`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, median of ${RUNS} fresh processes each\n`,
);
console.log("| workload | baseline ms | omniloop ms | ratio | target | peak RSS ratio | met |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | :---: |");
for (const r of rows) {
	const rss = r.rssTarget === undefined ? `${r.rssRatio}` : `${r.rssRatio} (≤ ${r.rssTarget})`;
	console.log(
		`| ${r.name} | ${r.baselineMs} | ${r.subjectMs} | ${r.ratio}× | ≤ ${r.target}× | ${rss} | ${r.met ? "yes" : "no"} |`,
	);
}
console.log("\n| W2 turns | bare ms | omniloop ms | omniloop ms per turn |");
console.log("| ---: | ---: | ---: | ---: |");
for (const g of growth) console.log(`| ${g.turns} | ${g.bareMs} | ${g.engineMs} | ${g.engineMsPerTurn} |`);
console.log(`\nper-turn cost at 400 turns / at 50 turns: ${growthRatio} (linear growth: ≈ 1)`);

writeFileSync(
	`${here}results.json`,
	`${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: cpus().length, runs: RUNS, rows, growth, growthRatio }, null, "\t")}\n`,
);

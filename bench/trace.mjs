// npm run bench:trace: what the Trace costs per turn of W2, in parts, in fresh processes as W2
// runs (200 turns: the writer's code runs cold, as it does there). Each turn writes W2's 19 lines
// (request_begin, the answer, 4 × tool_call, approval_decision, tool_start, tool_call_output,
// token_usage, request_end) in the engine's two flushes: at the turn boundary (request_begin) and
// before the tools start. Parts, each the median of BENCH_RUNS (9) processes, CPU time:
//   none       the messages made, nothing written (the figure the others are read against)
//   stringify  JSON.stringify of each line, nothing kept
//   buffer     TraceWriter.write of each line into a Trace that is off (the call, no line)
//   write      the real TraceWriter: each line serialized and buffered, two write(2)s a turn
// For instruction counts, which a busy machine does not move, run one part under
//   valgrind --tool=callgrind node --single-threaded bench/trace.mjs --one <part|none> 200
// and compare with `none`.
// Not public API (docs/api.md): the engine's own modules, straight from the build.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assistantText, makeMessage, toolCall, toolCallOutput } from "../packages/core/dist/messages/constructors.js";
import { TraceWriter } from "../packages/core/dist/trace/trace-writer.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const PARTS = ["none", "stringify", "buffer", "write"];

/** One turn's lines, in the engine's two flushes: [turn boundary, before the tools]. */
function turnLines(turn, seq) {
	const calls = [0, 1, 2, 3].map((i) => ({ callId: `c${turn}_${i}`, name: "noop" }));
	const usage = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 20 };
	const boundary = [
		...calls.map((call) => toolCallOutput(call, "ok")),
		makeMessage("request_begin", { turn, attempt: 0 }),
	];
	const beforeTools = [
		assistantText(`t${turn}d0 t${turn}d1 t${turn}d2 t${turn}d3 t${turn}d4 t${turn}d5 t${turn}d6 t${turn}d7 `),
		...calls.flatMap((call, i) => [
			toolCall(call.callId, call.name, JSON.stringify({ i })),
			makeMessage("approval_decision", { ...call, decision: "allow", by: "policy" }),
		]),
		makeMessage("token_usage", { request: { ...usage }, session: { ...usage, total: 20 * turn } }),
		makeMessage("request_end", { status: "ok" }),
		...calls.map((call) => makeMessage("tool_start", call)),
	];
	for (const message of [...boundary, ...beforeTools]) message.seq = ++seq.n;
	return [boundary, beforeTools];
}

/** One part in this process; prints its CPU µs per turn. */
function one(part, turns) {
	const seq = { n: 0 };
	const home = mkdtempSync(join(tmpdir(), "omniloop-bench-trace-"));
	const header = { type: "trace_header", version: 1, sessionId: "bench", agentId: "bench", file: 1 };
	const trace = TraceWriter.create(join(home, "trace.jsonl"), header, { enabled: part === "write" });
	let chars = 0;
	const started = process.cpuUsage();
	// The messages are made in the loop, as the engine makes them: made all first, they would stay
	// alive and every scavenge would copy them, a cost the engine does not have.
	for (let turn = 1; turn <= turns; turn++)
		for (const lines of turnLines(turn, seq)) {
			if (part === "stringify") for (const message of lines) chars += JSON.stringify(message).length;
			if (part === "buffer" || part === "write") {
				for (const message of lines) trace.write(message);
				trace.flush();
			}
		}
	const used = process.cpuUsage(started);
	trace.close();
	rmSync(home, { recursive: true, force: true });
	process.stdout.write(`${JSON.stringify({ part, usPerTurn: (used.user + used.system) / turns, chars })}\n`);
}

function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

if (process.argv[2] === "--one") one(process.argv[3], Number(process.argv[4] ?? TURNS));
else {
	const figures = new Map(PARTS.map((part) => [part, []]));
	// Parts alternate, so a burst of load elsewhere lands on all of them.
	for (let run = 0; run < RUNS; run++)
		for (const part of PARTS) {
			const out = execFileSync(process.execPath, [process.argv[1], "--one", part, String(TURNS)], { encoding: "utf8" });
			figures.get(part).push(JSON.parse(out).usPerTurn);
		}
	console.log(`The Trace per turn of W2 (${TURNS} turns, CPU µs, median of ${RUNS} processes):`);
	for (const part of PARTS) console.log(`  ${part.padEnd(10)} ${median(figures.get(part)).toFixed(1).padStart(7)}`);
}

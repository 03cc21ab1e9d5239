// npm run bench:checkpoints: a checkpoint of a 10,000-file workspace — the first (every file is
// hashed into the store) and the next ones after one file changed (the target: < 300 ms), and a
// second Session's first on the same workspace (its index starts from the first Session's).
// The median of BENCH_RUNS (5) later checkpoints; the real git, the real file system.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { SessionCheckpoints } from "../packages/core/dist/checkpoints/session-checkpoints.js";
import { ShadowStore } from "../packages/core/dist/checkpoints/shadow-store.js";

const FILES = Number(process.env.BENCH_FILES ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const root = mkdtempSync(join(tmpdir(), "omniloop-bench-cp-"));
const home = join(root, "home");
const workspace = join(root, "ws");
try {
	for (let i = 0; i < FILES; i++) {
		const dir = join(workspace, `d${Math.floor(i / 100)}`);
		if (i % 100 === 0) mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, `f${i}.txt`), `file ${i}\n`);
	}
	const checkpoints = new SessionCheckpoints(ShadowStore.at(home, "bench", workspace, 4 * 1024 * 1024), "bench");
	/** The checkpoint before a turn's first change (what the turn waits for), then the seal after its tools. */
	const timed = async (seq) => {
		const start = performance.now();
		await checkpoints.create("turn", seq);
		const made = performance.now();
		await checkpoints.seal();
		return { checkpoint: made - start, seal: performance.now() - made };
	};
	const first = await timed(1);
	const later = [];
	for (let i = 0; i < RUNS; i++) {
		writeFileSync(join(workspace, "d0", "f0.txt"), `changed ${i}\n`);
		later.push(await timed(i + 2));
	}
	const second = new SessionCheckpoints(ShadowStore.at(home, "bench-2", workspace, 4 * 1024 * 1024), "bench-2");
	const secondStart = performance.now();
	await second.create("turn", 1);
	const secondFirst = performance.now() - secondStart;
	const median = (xs) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
	const result = {
		files: FILES,
		firstCheckpointMs: Math.round(first.checkpoint),
		checkpointMedianMs: median(later.map((t) => t.checkpoint)),
		sealMedianMs: median(later.map((t) => t.seal)),
		checkpointMs: later.map((t) => Math.round(t.checkpoint)),
		secondSessionFirstCheckpointMs: Math.round(secondFirst),
	};
	process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
	rmSync(root, { recursive: true, force: true });
}

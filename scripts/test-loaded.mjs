#!/usr/bin/env node
// `npm run test:loaded`: the test suite on a busy machine. Users and CI run the tests beside other
// work, so a test that waits on time instead of on the event it needs fails there and passes on a
// quiet machine. This keeps the cores busy with CPU-burning loops while `vitest run` runs, and
// stops them when the suite ends — or after a cap, whatever happens to this script (each loop
// checks the clock itself, so none outlives the cap even if this process is killed).
//
// Arguments go to vitest (`npm run test:loaded -- --project core`). Environment:
//   OMNILOOP_LOAD_LOOPS   how many loops (default 2: the two cores of a small CI runner)
//   OMNILOOP_LOAD_CAP_MS  how long a loop may run at most (default 45 minutes)
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const loops = positiveInteger("OMNILOOP_LOAD_LOOPS", 2);
const capMs = positiveInteger("OMNILOOP_LOAD_CAP_MS", 45 * 60_000);

function positiveInteger(name, fallback) {
	const raw = process.env[name];
	if (raw === undefined || raw === "") return fallback;
	const value = Number(raw);
	if (!Number.isInteger(value) || value < 1) {
		console.error(`test:loaded: ${name} must be a positive integer, got ${JSON.stringify(raw)}`);
		process.exit(2);
	}
	return value;
}

const burn = `const end = Date.now() + ${capMs}; while (Date.now() < end) {}`;
const burners = Array.from({ length: loops }, () => spawn(process.execPath, ["-e", burn], { stdio: "ignore" }));
console.error(
	`test:loaded: ${loops} CPU-burning loops (pids ${burners.map((b) => b.pid).join(", ")}), at most ${capMs / 60_000} min`,
);

function stopBurners() {
	for (const burner of burners) if (burner.exitCode === null && burner.signalCode === null) burner.kill("SIGKILL");
}
process.on("exit", stopBurners);

// Vitest's own command line (its package's bin), run by this node: no shell, no npx in between.
const vitestBin = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const vitest = spawn(process.execPath, [vitestBin, "run", ...process.argv.slice(2)], {
	cwd: root,
	stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
	process.on(signal, () => {
		stopBurners();
		vitest.kill(signal);
	});
}
vitest.on("exit", (code, signal) => {
	stopBurners();
	process.exit(code ?? (signal === null ? 1 : 128));
});

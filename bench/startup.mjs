// Startup costs, each in fresh processes: importing a package, `omniloop --version`, and the time
// from `omniloop run` starting to its first request reaching a local model server.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
// What users run: the installed command (bench/installed.mjs; its `--version` answers without
// loading the CLI). The repository's own bin runs the same bundle, when no install is given.
const repositoryCli = join(root, "packages/cli/bin/omniloop.js");

/**
 * CPU ms (user + system) of this process's children that have ended, from Linux's /proc (NaN
 * elsewhere). On a busy machine a child's wall-clock time is mostly waiting for a core; its CPU
 * time is what it cost. /proc counts in 10 ms ticks.
 */
function childrenCpuMs() {
	try {
		const stat = readFileSync("/proc/self/stat", "utf8");
		// After "pid (name) ": cutime and cstime are fields 16 and 17 of the line, 13 and 14 here.
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		return (Number(fields[13]) + Number(fields[14])) * 10;
	} catch {
		return Number.NaN;
	}
}

/** CPU ms (user + system) a running process has used so far, from /proc/<pid>/stat (NaN elsewhere). */
function processCpuMs(pid) {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		// utime and stime: fields 14 and 15 of the line, 11 and 12 here; in clock ticks of 10 ms.
		return (Number(fields[11]) + Number(fields[12])) * 10;
	} catch {
		return Number.NaN;
	}
}

/** Importing `specifier` in a fresh process: wall-clock and CPU ms (node's own start included) and peak RSS. */
export function importCost(specifier) {
	const code = `${specifier === "" ? "" : `await import(${JSON.stringify(specifier)});`}process.stdout.write(String(process.resourceUsage().maxRSS))`;
	const cpuBefore = childrenCpuMs();
	const started = performance.now();
	const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", cwd: root });
	return { ms: performance.now() - started, cpuMs: childrenCpuMs() - cpuBefore, maxRssKb: Number(out) };
}

/** `omniloop --version`: wall-clock and CPU ms of the whole process. */
export function versionCost(cli = repositoryCli) {
	const cpuBefore = childrenCpuMs();
	const started = performance.now();
	execFileSync(process.execPath, [cli, "--version"], { encoding: "utf8" });
	return { ms: performance.now() - started, cpuMs: childrenCpuMs() - cpuBefore };
}

/**
 * Answers every chat request with one short streamed reply, and notes when the first arrived and
 * the CPU the process `pid()` had used by then.
 */
function modelServer(pid) {
	let first;
	let firstCpuMs;
	const server = createServer((req, res) => {
		if (first === undefined) {
			first = performance.now();
			firstCpuMs = processCpuMs(pid());
		}
		req.resume();
		res.writeHead(200, { "content-type": "text/event-stream" });
		const chunk = (delta, finish) =>
			`data: ${JSON.stringify({ id: "b", object: "chat.completion.chunk", created: 0, model: "bench", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
		res.end(`${chunk({ role: "assistant", content: "ok" }, null)}${chunk({}, "stop")}data: [DONE]\n\n`);
	});
	return { server, firstRequestAt: () => first, cpuMsAtFirstRequest: () => firstCpuMs };
}

/**
 * `omniloop run "hi"` against a local server: ms from spawning the process to its first request;
 * the CPU ms it had used by then (read from /proc as the request arrives, so what a loaded machine
 * makes it wait is not counted); and the CPU ms of the whole process, its reply and exit included.
 */
export async function firstRequestCost(cli = repositoryCli) {
	let child;
	const { server, firstRequestAt, cpuMsAtFirstRequest } = modelServer(() => child.pid);
	server.listen(0, "127.0.0.1");
	await once(server, "listening");
	const dir = mkdtempSync(join(tmpdir(), "omniloop-bench-run-"));
	try {
		const { port } = server.address();
		writeFileSync(
			join(dir, "omniloop.yaml"),
			`models:\n  local: { provider: openai-compatible, model: bench, baseURL: "http://127.0.0.1:${port}/v1" }\nagents:\n  default_agent: { model: local }\n`,
		);
		const cpuBefore = childrenCpuMs();
		const started = performance.now();
		child = spawn(process.execPath, [cli, "run", "hi", "--yes", "--config-dir", dir], {
			cwd: dir,
			env: { ...process.env, OMNILOOP_HOME: join(dir, "home"), OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" },
			stdio: "ignore",
		});
		const [code] = await once(child, "exit");
		const at = firstRequestAt();
		if (code !== 0 || at === undefined)
			throw new Error(`omniloop run exited ${code} with ${at === undefined ? "no" : "a"} request`);
		return { ms: at - started, cpuMsToRequest: cpuMsAtFirstRequest(), cpuMs: childrenCpuMs() - cpuBefore };
	} finally {
		server.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

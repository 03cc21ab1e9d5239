import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KILL_GRACE_MS } from "../../src/tools/builtins/process-group.js";
import { readFileTool } from "../../src/tools/builtins/read-file.js";
import { shellTool } from "../../src/tools/builtins/shell.js";
import { call, makeSandbox, type Sandbox } from "./sandbox.js";

let box: Sandbox;
/** Processes a test started on purpose and must not leave behind. */
const started: number[] = [];
beforeEach(() => {
	box = makeSandbox();
});
afterEach(() => {
	for (const pid of started.splice(0)) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// Already gone, as it should be.
		}
	}
	box.cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for the command to write its background child's pid to `file` in the workspace. */
async function pidFrom(file: string): Promise<number> {
	const at = path.join(box.workspace, file);
	for (let waited = 0; waited < 5_000; waited += 20) {
		const text = existsSync(at) ? readFileSync(at, "utf8").trim() : "";
		if (/^\d+$/.test(text)) {
			started.push(Number(text));
			return Number(text);
		}
		await sleep(20);
	}
	throw new Error(`the command never wrote ${file}`);
}

/**
 * Whether `pid` still runs. Signal 0 answers ESRCH once the process is gone and reaped. A killed
 * process whose parent died too waits for PID 1 to reap it, and some container inits reap late
 * (seconds here): such a zombie runs no code any more, so it counts as gone, read from /proc.
 */
function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		expect((error as NodeJS.ErrnoException).code).toBe("ESRCH");
		return false;
	}
	return processState(pid) !== "Z";
}

/** The state letter in /proc/<pid>/stat (after the parenthesised name); undefined once it is gone. */
function processState(pid: number): string | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2).charAt(0);
	} catch {
		return undefined;
	}
}

/** Resolves once `pid` is gone; fails if it is still there after `withinMs`. */
async function expectGone(pid: number, withinMs: number): Promise<void> {
	for (let waited = 0; waited <= withinMs; waited += 20) {
		if (!isAlive(pid)) return;
		await sleep(20);
	}
	throw new Error(`process ${pid} was still alive ${withinMs} ms later`);
}

describe("shell", () => {
	it("runs bash in the workspace and returns stdout and stderr together with the exit code", async () => {
		const { ctx } = box.context();
		expect(await call(shellTool, { command: "echo out; echo err >&2; pwd" }, ctx)).toBe(
			`out\nerr\n${box.workspace}\n[exit code 0]`,
		);
		expect(await call(shellTool, { command: "echo failing; exit 3" }, ctx)).toBe("failing\n[exit code 3]");
		expect(await call(shellTool, { command: "true" }, ctx)).toBe("(no output)\n[exit code 0]");
	});

	it("keeps bash's own errors in order, with the command's line numbers", async () => {
		const { ctx } = box.context();
		expect(await call(shellTool, { command: "echo a\nnot_a_command_xyz\necho b" }, ctx)).toBe(
			"a\nbash: line 2: not_a_command_xyz: command not found\nb\n[exit code 0]",
		);
	});

	it("gives the command no input and says when it was killed by a signal", async () => {
		const { ctx } = box.context();
		expect(await call(shellTool, { command: "cat; echo after" }, ctx)).toBe("after\n[exit code 0]");
		expect(await call(shellTool, { command: "kill -SEGV $$" }, ctx)).toBe(
			"(no output)\n[the command was killed by signal SIGSEGV]",
		);
	});

	it("keeps the end of a long output and saves the whole of it under the Session's folder", async () => {
		const { ctx } = box.context("call_seq");
		const out = await call(shellTool, { command: "seq 1 5000" }, ctx);
		const saved = path.join(box.sessionDir, "tool-outputs", "call_seq.txt");
		expect(
			out.startsWith(
				`[output cut: showing the last 2,000 of 5,000 lines; the full output is in ${saved} (read_file reads it, with offset and limit)]\n3001\n`,
			),
		).toBe(true);
		expect(out.endsWith("\n5000\n[exit code 0]")).toBe(true);
		expect(readFileSync(saved, "utf8").split("\n")).toHaveLength(5_000);
	});

	it("a cut output's saved whole text is read_file's to read in parts, though the omniloop home is denied; nothing beside it is", async () => {
		// The Session's folder lies in the omniloop home, which the file tools never reach.
		const { ctx } = box.context("call_seq");
		const denied = { ...ctx, deniedPaths: [box.sessionDir] };
		await call(shellTool, { command: "seq 1 5000" }, denied);
		const saved = path.join(box.sessionDir, "tool-outputs", "call_seq.txt");
		expect(await call(readFileTool, { path: saved, offset: 4_999 }, denied)).toMatch(
			/^ {2}4999\t4999\n {2}5000\t5000\n/,
		);
		writeFileSync(path.join(box.sessionDir, "trace.jsonl"), "the Session's Trace\n");
		symlinkSync(path.join(box.sessionDir, "trace.jsonl"), path.join(box.sessionDir, "tool-outputs", "link.txt"));
		for (const elsewhere of [
			path.join(box.sessionDir, "trace.jsonl"),
			path.join(box.sessionDir, "tool-outputs", "..", "trace.jsonl"),
			path.join(box.sessionDir, "tool-outputs", "link.txt"),
			path.join(box.sessionDir, "tool-outputs"),
		]) {
			await expect(call(readFileTool, { path: elsewhere }, denied)).rejects.toThrow(/outside the workspace/);
		}
	});

	it("refuses a timeout over 600 s or under 1 ms", () => {
		expect(shellTool.checkArguments({ command: "true", timeout_ms: 600_001 }).ok).toBe(false);
		expect(shellTool.checkArguments({ command: "true", timeout_ms: 0 }).ok).toBe(false);
		expect(shellTool.checkArguments({ command: "true", timeout_ms: 600_000 }).ok).toBe(true);
		expect(shellTool.readOnly).toBe(false);
	});

	it("on abort, kills the whole process group: no grandchild survives", async () => {
		const { ctx, controller } = box.context();
		const running = call(shellTool, { command: "sleep 30 & echo $! > child.pid; wait" }, ctx);
		const child = await pidFrom("child.pid");
		expect(isAlive(child)).toBe(true);
		const abortedAt = Date.now();
		controller.abort();
		await expect(running).rejects.toThrow("The command was aborted; it and every process it started were stopped.");
		// Gone long before the 30 s the command would take; the margin is a busy machine's.
		await expectGone(child, 10_000);
		expect(Date.now() - abortedAt).toBeLessThan(10_000);
	});

	it("on timeout, kills the whole process group and returns what it printed", async () => {
		const { ctx } = box.context();
		const startedAt = Date.now();
		const running = call(
			shellTool,
			{ command: "echo before; sleep 30 & echo $! > child.pid; wait", timeout_ms: 500 },
			ctx,
		);
		await expect(running).rejects.toThrow(
			/^The command timed out after 500 ms; it and every process it started were stopped .*Its output until then:\nbefore$/s,
		);
		expect(Date.now() - startedAt).toBeLessThan(10_000);
		await expectGone(await pidFrom("child.pid"), 10_000);
	});

	it("follows SIGTERM with SIGKILL for a grandchild that ignores SIGTERM", async () => {
		const { ctx, controller } = box.context();
		// It notes the SIGTERM (the test waits for that, not for a time) and keeps running: its
		// `sleep`, killed with the group, is started again until SIGKILL comes.
		const command = `bash -c 'trap "echo $$ > termed.pid" TERM; echo $$ > stubborn.pid; while :; do sleep 30 & wait $!; done' & wait`;
		const running = call(shellTool, { command }, ctx);
		const stubborn = await pidFrom("stubborn.pid");
		controller.abort();
		await expect(running).rejects.toThrow("aborted");
		expect(await pidFrom("termed.pid")).toBe(stubborn);
		expect(isAlive(stubborn)).toBe(true);
		await expectGone(stubborn, KILL_GRACE_MS + 10_000);
	});

	it("returns when the command ends, even if a background job still holds its output", async () => {
		const { ctx } = box.context();
		const startedAt = Date.now();
		const out = await call(shellTool, { command: "sleep 30 & echo $! > bg.pid; echo started" }, ctx);
		expect(Date.now() - startedAt).toBeLessThan(10_000);
		expect(out).toBe(
			"started\n[a background process the command started still holds the output; what it writes from now on is not captured]\n[exit code 0]",
		);
		await pidFrom("bg.pid");
	});

	it("does not start at all when the call is already aborted", async () => {
		const { ctx, controller } = box.context();
		controller.abort();
		await expect(call(shellTool, { command: "touch ran" }, ctx)).rejects.toThrow();
		expect(existsSync(path.join(box.workspace, "ran"))).toBe(false);
	});
});

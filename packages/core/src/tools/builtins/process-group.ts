import { spawn } from "node:child_process";
import type { CommandSandbox } from "../sandbox/command-sandbox.js";

/** After SIGTERM, how long a process group gets to exit before SIGKILL. */
export const KILL_GRACE_MS = 2_000;

/**
 * After bash exits, how long to wait for its output pipes to close. A background job started with
 * `&` keeps them open for as long as it lives; the call must not wait for it.
 */
const DRAIN_MS = 250;

/** At most this much output is held in memory; beyond it the oldest output is dropped. */
export const MAX_CAPTURE_BYTES = 16 * 1024 * 1024;

export interface CommandOptions {
	command: string;
	cwd: string;
	/** The command's environment, and the sandbox around it (see CommandSandbox). */
	sandbox: CommandSandbox;
	timeoutMs: number;
	signal: AbortSignal;
}

/** How a command ended. `exited` covers a normal exit and death by a signal nobody here sent. */
export type CommandEnding = "exited" | "timed_out" | "aborted";

export interface CommandRun {
	ending: CommandEnding;
	/** bash's exit code; null when it died by a signal. */
	exitCode: number | null;
	exitSignal: NodeJS.Signals | null;
	/** stdout and stderr together, in the order written (the end of it, past MAX_CAPTURE_BYTES). */
	output: string;
	/** Bytes dropped from the start of the output to stay under MAX_CAPTURE_BYTES. */
	droppedBytes: number;
	/** True when bash exited but something it started still held the output open. */
	leftBackgroundOutput: boolean;
}

/**
 * Runs `bash -c command` (stderr joined to stdout; in the sandbox unless it is off) as the leader of a new process group. On timeout or abort the whole group
 * gets SIGTERM, then SIGKILL after KILL_GRACE_MS, so no child or grandchild outlives the call.
 * Settles once bash has exited and its output is read (or the drain wait is over).
 * Rejects only when bash cannot be started.
 */
export async function runInProcessGroup(options: CommandOptions): Promise<CommandRun> {
	// `exec 2>&1` puts stderr on stdout's pipe, so the two interleave exactly as written (two pipes
	// would race). It shares the command's first line, so bash's "line N" messages stay right.
	const launch = await options.sandbox.command(["bash", "-c", `exec 2>&1; ${options.command}`], options.cwd);
	return new Promise<CommandRun>((resolve, reject) => {
		const child = spawn(launch.file, launch.args, {
			cwd: options.cwd,
			env: launch.env,
			detached: true,
			// No stdin: a command waiting for input would otherwise wait until the timeout.
			stdio: ["ignore", "pipe", "pipe"],
		});
		const captured = new TailBuffer(MAX_CAPTURE_BYTES);
		child.stdout.on("data", (chunk: Buffer) => captured.push(chunk));
		child.stderr.on("data", (chunk: Buffer) => captured.push(chunk));
		let ending: CommandEnding = "exited";
		let exited = false;
		let settled = false;
		let drainTimer: NodeJS.Timeout | undefined;

		const stop = (why: CommandEnding) => {
			if (settled || ending !== "exited") return;
			ending = why;
			killGroup(child.pid, "SIGTERM");
			// Not cleared when the call settles: a process ignoring SIGTERM may outlive bash.
			setTimeout(() => killGroup(child.pid, "SIGKILL"), KILL_GRACE_MS);
		};
		const onAbort = () => stop("aborted");
		const timeout = setTimeout(() => stop("timed_out"), options.timeoutMs);
		options.signal.addEventListener("abort", onAbort, { once: true });

		const settle = (pipesClosed: boolean) => {
			if (settled) return;
			settled = true;
			clearTimeout(timeout);
			clearTimeout(drainTimer);
			options.signal.removeEventListener("abort", onAbort);
			child.stdout.destroy();
			child.stderr.destroy();
			resolve({
				ending,
				exitCode: child.exitCode,
				exitSignal: child.signalCode,
				output: captured.text(),
				droppedBytes: captured.dropped,
				leftBackgroundOutput: !pipesClosed && ending === "exited",
			});
		};
		child.on("error", (error) => {
			if (exited || settled) return;
			settled = true;
			clearTimeout(timeout);
			options.signal.removeEventListener("abort", onAbort);
			reject(new Error(`Could not start bash to run the command: ${error.message}`));
		});
		child.on("exit", () => {
			exited = true;
			drainTimer = setTimeout(() => settle(false), DRAIN_MS);
		});
		child.on("close", () => settle(true));
		if (options.signal.aborted) onAbort();
	});
}

/**
 * Signals every process in the group led by `pid`. Never throws: it runs from timers, and a group
 * that is already gone (ESRCH) is the outcome we want anyway.
 */
function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
	if (pid === undefined) return;
	try {
		process.kill(-pid, signal);
	} catch {
		// Nothing left to signal.
	}
}

/** Keeps the last `limit` bytes (at chunk granularity) of a stream of chunks. */
class TailBuffer {
	private readonly chunks: Buffer[] = [];
	private size = 0;
	dropped = 0;

	constructor(private readonly limit: number) {}

	push(chunk: Buffer): void {
		this.chunks.push(chunk);
		this.size += chunk.length;
		while (this.size > this.limit && this.chunks.length > 1) {
			const oldest = this.chunks.shift()!;
			this.size -= oldest.length;
			this.dropped += oldest.length;
		}
	}

	text(): string {
		return Buffer.concat(this.chunks).toString("utf8");
	}
}

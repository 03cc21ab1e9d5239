import { type ChildProcess, type ChildProcessByStdio, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { promisify } from "node:util";

/** What a command printed, and how it ended. */
export interface Ran {
	readonly code: number | null;
	readonly stdout: string;
	readonly stderr: string;
}

/**
 * Runs `command` as a shell runs a line typed into it (the words of README's Install section), with
 * stdin at its end: nobody is there to answer a question.
 */
export function shell(command: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Ran> {
	return ranOf(spawn("sh", ["-c", command], { ...options, stdio: ["ignore", "pipe", "pipe"] }));
}

/** What `child` (its stdout and stderr piped) printed, and how it ended, once it has. */
export function ranOf(child: ChildProcessByStdio<null, Readable, Readable>): Promise<Ran> {
	return new Promise((resolve, reject) => {
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString("utf8");
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		child.on("error", reject);
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

/** A long-running command line (`omniloop serve`), in a process group of its own so it can be stopped whole. */
export interface Started {
	readonly child: ChildProcess;
	/** The first line it printed on stdout. */
	readonly firstLine: string;
	/** SIGTERM to the group; resolves with what it printed on stderr once every process of it has ended. */
	stop(): Promise<string>;
}

export async function startShell(command: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Started> {
	const child = spawn("sh", ["-c", command], { ...options, stdio: ["ignore", "pipe", "pipe"], detached: true });
	let stderr = "";
	child.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	// The pipes close when the last process holding them (the shell, the command) has ended.
	const ended = once(child, "close");
	const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
	const first = once(lines, "line") as Promise<[string]>;
	const firstLine = await Promise.race([
		first.then(([line]) => line),
		ended.then(() => {
			throw new Error(`${command} ended before printing a line:\n${stderr}`);
		}),
	]);
	let stopping: Promise<string> | undefined;
	return {
		child,
		firstLine,
		stop() {
			stopping ??= (async () => {
				try {
					if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
				} catch (error) {
					// Already ended on its own: there is nothing to stop.
					if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
				}
				await ended;
				return stderr;
			})();
			return stopping;
		},
	};
}

/**
 * better-sqlite3's install script (prebuild-install) looks for its prebuilt binary in a local
 * folder before downloading one (its documented `<package>_local_prebuilds` setting, from the
 * environment as `npm_config_better_sqlite3_local_prebuilds`). Its download is unreachable here
 * and compiling from source takes minutes, so the folder gets a prebuilt package made from the
 * binary `npm ci` built for this repository: the same version (its name carries the version,
 * so a different one is not found and compiles), this Node's ABI, platform and architecture.
 * Returns the folder.
 */
export async function betterSqlitePrebuilds(root: string, scratch: string): Promise<string> {
	const installed = join(root, "node_modules", "better-sqlite3");
	const { version } = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { version: string };
	const stage = join(scratch, "prebuild-stage");
	mkdirSync(join(stage, "build", "Release"), { recursive: true });
	copyFileSync(
		join(installed, "build", "Release", "better_sqlite3.node"),
		join(stage, "build", "Release", "better_sqlite3.node"),
	);
	const prebuilds = join(scratch, "prebuilds");
	mkdirSync(prebuilds);
	const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
	await promisify(execFile)("tar", ["-czf", join(prebuilds, name), "-C", stage, "build/Release/better_sqlite3.node"]);
	return prebuilds;
}

/** The URLs of the scripts and style sheets a page loads from its own server (`/assets/…`). */
export function assetsOf(html: string): string[] {
	return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] ?? "");
}

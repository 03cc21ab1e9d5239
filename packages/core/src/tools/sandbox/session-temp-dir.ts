import { lstatSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A Session's temp dir for its commands (`$TMPDIR` inside the sandbox), named after the process
 * that made it: `omniloop-shell-<pid namespace>-<pid>-XXXXXX`. A process that is killed or
 * crashes cannot remove its dirs, and what commands left there (build outputs, files holding what
 * they printed) would stay until the machine cleans `/tmp`; the first one each process makes
 * sweeps those away. The namespace is in the name because a `/tmp` shared between containers
 * holds dirs whose pids mean other processes there.
 */
export function makeSessionTempDir(): string {
	if (!swept) {
		swept = true;
		sweepLeftoverTempDirs(tmpdir());
	}
	return realpathSync(mkdtempSync(join(tmpdir(), `${PREFIX}${PID_NAMESPACE}-${process.pid}-`)));
}

const PREFIX = "omniloop-shell-";
const LEFTOVER = /^omniloop-shell-(\d+)-(\d+)-[A-Za-z0-9]{6}(?:\.denied)?$/;
let swept = false;

/** The inode of this process's PID namespace (Linux); 0 where there is none to read. */
const PID_NAMESPACE = (() => {
	try {
		return /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "0";
	} catch {
		return "0";
	}
})();

/**
 * Removes the temp dirs (and their placeholders) in `dir` that processes of this user and PID
 * namespace made and that are gone. One it cannot remove (files a command made unremovable) is
 * left as it was.
 */
export function sweepLeftoverTempDirs(dir: string): void {
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch {
		return;
	}
	const uid = process.getuid?.();
	for (const name of names) {
		const match = LEFTOVER.exec(name);
		if (match === null || match[1] !== PID_NAMESPACE) continue;
		const pid = Number(match[2]);
		if (pid === process.pid || isAlive(pid)) continue;
		const path = join(dir, name);
		try {
			if (uid !== undefined && lstatSync(path).uid !== uid) continue;
			rmSync(path, { recursive: true, force: true });
		} catch {
			// Not ours to remove after all, or not all of it: left for the machine's own cleaning.
		}
	}
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: it runs, as another user.
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

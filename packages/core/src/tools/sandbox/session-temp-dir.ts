import { mkdtempSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { lstat, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processRuns } from "../process-runs.js";

/**
 * A Session's temp dir for its commands (`$TMPDIR` inside the sandbox), named after the process
 * that made it: `omniloop-shell-<boot>-<pid namespace>-<pid>-XXXXXX`. A process that is killed or
 * crashes cannot remove its dirs, and what commands left there (build outputs, files holding what
 * they printed) would stay until the machine cleans `/tmp`; the first one each process makes
 * sweeps those away, in the background (they may be large).
 *
 * A pid means a process only on one boot of one machine and in one PID namespace: a temp folder
 * shared between machines (`TMPDIR` on NFS) or containers holds dirs whose pids are other
 * processes here, so both are in the name. Where they cannot be read (no `/proc`), the dir gets a
 * name no sweep matches, and nothing is swept.
 */
export function makeSessionTempDir(): string {
	const owner = OWNER;
	if (owner === undefined) return realpathSync(mkdtempSync(join(tmpdir(), PREFIX)));
	if (!swept) {
		swept = true;
		void sweepLeftoverTempDirs(tmpdir(), owner);
	}
	return realpathSync(mkdtempSync(join(tmpdir(), `${PREFIX}${owner}-${process.pid}-`)));
}

const PREFIX = "omniloop-shell-";
const LEFTOVER = /^omniloop-shell-([0-9a-f]{8}-\d+)-(\d+)-[A-Za-z0-9]{6}(?:\.denied)?$/;
let swept = false;

/** `<boot id's first 8 hex digits>-<PID namespace inode>`: whose pids this process's are. */
const OWNER = (() => {
	try {
		const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").replace(/-/g, "").slice(0, 8);
		const namespace = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1];
		return /^[0-9a-f]{8}$/.test(boot) && namespace !== undefined ? `${boot}-${namespace}` : undefined;
	} catch {
		return undefined;
	}
})();

/** Whose pids this process's are (see makeSessionTempDir); undefined where that cannot be told. */
export function tempDirOwner(): string | undefined {
	return OWNER;
}

/**
 * Removes the temp dirs (and their placeholders) in `dir` that processes of this user made under
 * `owner` (this boot, this PID namespace) and that are gone. One it cannot remove (files a
 * command made unremovable) is left as it was. Never rejects.
 */
export async function sweepLeftoverTempDirs(dir: string, owner: string): Promise<void> {
	const names = await readdir(dir).catch(() => [] as string[]);
	const uid = process.getuid?.();
	for (const name of names) {
		const match = LEFTOVER.exec(name);
		if (match === null || match[1] !== owner) continue;
		const pid = Number(match[2]);
		if (pid === process.pid || processRuns(pid)) continue;
		const path = join(dir, name);
		try {
			if (uid === undefined || (await lstat(path)).uid !== uid) continue;
			await rm(path, { recursive: true, force: true });
		} catch {
			// Not ours to remove after all, or not all of it: left for the machine's own cleaning.
		}
	}
}

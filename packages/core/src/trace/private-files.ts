import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The omniloop home holds every Session's Trace (what the model read: files, command output),
 * the server's token and its store: only the user may read it. Folders are 0700 and files 0600,
 * whatever the umask, when they are made; older homes are tightened when an agent is made.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Makes `dir` and any missing parents 0700 (an existing folder keeps its mode). */
export function makePrivateDir(dir: string): void {
	mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Tightens the home and its `sessions/` to 0700 when they exist (made by an older omniloop, or by hand at 0755). */
export function tightenHome(home: string): void {
	for (const dir of [home, join(home, "sessions")]) {
		try {
			if (existsSync(dir)) chmodSync(dir, PRIVATE_DIR_MODE);
		} catch {
			// Not ours to change (another user's, a read-only mount): it stays as it is.
		}
	}
}

/**
 * Replaces `file` whole with `text`, mode 0600: written beside it and renamed into place, so a
 * crash leaves the old file or the new one, never half of one.
 */
export function replacePrivateFile(file: string, text: string): void {
	const partial = `${file}.${process.pid}.tmp`;
	writeFileSync(partial, text, { mode: PRIVATE_FILE_MODE });
	renameSync(partial, file);
}

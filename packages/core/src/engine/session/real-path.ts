import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * A path's real path now (a host's denied paths as the Session opens); as given when it does not
 * exist (a denied file not made yet). Never for the workspace: its real path is the one recorded
 * when the Session was made (see ToolContext.workspaceDir).
 */
export function realPathNow(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/**
 * Where the real path `confined` leads now, when that is no longer itself (the folder was swapped
 * for a link, or moved); undefined while it is itself, or gone.
 */
export function ledElsewhere(confined: string): string | undefined {
	const now = realPathNow(confined);
	return now === confined ? undefined : now;
}

/** A file's real path whether it exists or not: its folder's real path, then its name (a file not written yet is still the same file). */
export function realFilePathNow(path: string): string {
	return join(realPathNow(dirname(path)), basename(path));
}

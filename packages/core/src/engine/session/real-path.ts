import { realpathSync } from "node:fs";

/**
 * A path's real path as the Session opens, which its tools keep (see ToolContext.workspaceDir);
 * as given when it does not exist (a denied file not made yet, a workspace gone since).
 */
export function realPathNow(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

import { isInside } from "./workspace.js";

/**
 * The workspace root that holds `dir` (already confined to them), the innermost when roots nest:
 * where the Session's AGENTS.md walk starts. The roots are real paths (ServerState.workspaceRoots).
 */
export function rootOf(realRoots: readonly string[], dir: string): string | undefined {
	return realRoots.filter((root) => isInside(root, dir)).sort((a, b) => b.length - a.length)[0];
}

import { realpathSync } from "node:fs";
import { relative, sep } from "node:path";

/** The workspace root that holds `dir` (already confined to them): where the Session's AGENTS.md walk starts. */
export function rootOf(roots: readonly string[], dir: string): string | undefined {
	return roots
		.map((root) => realpathSync(root))
		.filter((root) => {
			const rel = relative(root, dir);
			return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== "..");
		})
		.sort((a, b) => b.length - a.length)[0];
}

import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { GitPlace } from "./git-runner.js";

const WORKSPACE = ".workspace";

/**
 * Before a Session's first snapshot: its index starts as a copy of the newest index another
 * Session keeps of the same workspace, so git's stat cache spares hashing every file again (the
 * first checkpoint of a second Session costs what a later one does). Each index records its
 * workspace beside it (`<index>.workspace`). See docs/checkpoints.md.
 */
export function seedIndex(place: GitPlace): void {
	const { indexFile, workTree } = place;
	writeFileSync(`${indexFile}${WORKSPACE}`, workTree, { mode: 0o600 });
	if (existsSync(indexFile)) return;
	const dir = dirname(indexFile);
	let newest: { path: string; mtime: number } | undefined;
	for (const name of readdirSync(dir)) {
		if (!name.endsWith(WORKSPACE)) continue;
		const index = join(dir, name.slice(0, -WORKSPACE.length));
		if (index === indexFile || !existsSync(index)) continue;
		if (readFileSync(join(dir, name), "utf8") !== workTree) continue;
		const mtime = statSync(index).mtimeMs;
		if (newest === undefined || mtime > newest.mtime) newest = { path: index, mtime };
	}
	// git replaces an index by renaming a new file over it: the copy is one whole version or the other.
	if (newest !== undefined) copyFileSync(newest.path, indexFile);
}

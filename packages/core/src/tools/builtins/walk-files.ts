import type { Dirent } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { deniedRoot, isInside, readFolderChecked, toRelative, type WorkspacePath } from "./workspace.js";

/** A file found by the walk. */
export interface WalkedFile {
	/** Where to read it: a real path inside the workspace. */
	readonly real: string;
	/** Relative to the workspace, "/"-separated: how tools name it to the model. */
	readonly relative: string;
	/** Relative to the folder the walk started in, "/"-separated: what glob patterns match. */
	readonly fromStart: string;
}

export interface WalkResult {
	/** Sorted by `relative`. */
	readonly files: WalkedFile[];
	/** True when the walk stopped at MAX_WALKED_FILES: some files were never looked at. */
	readonly stoppedEarly: boolean;
}

/** The walk gives up after this many files, so a huge tree cannot stall a call. */
export const MAX_WALKED_FILES = 100_000;

/** The rules of one .gitignore file, which speak of paths relative to its folder. */
interface IgnoreLevel {
	/** The folder holding the .gitignore, relative to the workspace; "" for the workspace itself. */
	readonly folder: string;
	readonly rules: Ignore;
}

/**
 * Lists the regular files under `start` (a folder) the way `git ls-files --others --cached` would
 * see them: `.gitignore` files at every level apply, and `.git/` is always skipped. A folder the
 * caller named on purpose is walked even when it is ignored itself.
 * Symbolic links are not followed into folders (no cycles, no escapes); a link to a file counts
 * only when its real path is inside the workspace. The start's denied paths (the omniloop home)
 * are skipped, as if they were not there.
 */
export async function walkFiles(start: WorkspacePath, signal: AbortSignal): Promise<WalkResult> {
	const files: WalkedFile[] = [];
	let levels = await ancestorLevels(start);
	if (start.relative !== "." && isIgnored(levels, start.relative, true)) levels = [];
	const walk = async (folder: string, levelsHere: IgnoreLevel[]): Promise<boolean> => {
		signal.throwIfAborted();
		const relativeFolder = toRelative(start.workspace, folder);
		const own = await loadLevel(folder, relativeFolder === "." ? "" : relativeFolder);
		const active = own ? [...levelsHere, own] : levelsHere;
		// A folder swapped for a link out since it was listed is skipped, as an unreadable one is.
		const entries = await readFolderChecked(folder).catch(() => [] as Dirent[]);
		for (const entry of entries) {
			if (entry.name === ".git") continue;
			const real = path.join(folder, entry.name);
			if (deniedRoot(real, start.denied) !== undefined) continue;
			const relative = toRelative(start.workspace, real);
			if (entry.isDirectory()) {
				if (!isIgnored(active, relative, true) && !(await walk(real, active))) return false;
				continue;
			}
			if (isIgnored(active, relative, false)) continue;
			const fileReal = await regularFileReal(entry, real, start.workspace);
			if (fileReal === undefined || deniedRoot(fileReal, start.denied) !== undefined) continue;
			files.push({ real: fileReal, relative, fromStart: toRelative(start.real, real) });
			if (files.length >= MAX_WALKED_FILES) return false;
		}
		return true;
	};
	const complete = await walk(start.real, levels);
	files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
	return { files, stoppedEarly: !complete };
}

/**
 * Git's precedence: rules are read from the workspace down, and the last rule that matches wins,
 * so a deeper `!keep.log` re-includes what a shallower `*.log` ignored.
 */
function isIgnored(levels: readonly IgnoreLevel[], relative: string, isFolder: boolean): boolean {
	let ignored = false;
	for (const level of levels) {
		const below = level.folder === "" ? relative : relative.slice(level.folder.length + 1);
		const result = level.rules.test(isFolder ? `${below}/` : below);
		if (result.ignored) ignored = true;
		else if (result.unignored) ignored = false;
	}
	return ignored;
}

/** The .gitignore files of the folders above `start` (from the workspace down), which apply inside it. */
async function ancestorLevels(start: WorkspacePath): Promise<IgnoreLevel[]> {
	if (start.relative === ".") return [];
	const parts = start.relative.split("/").slice(0, -1);
	const levels: IgnoreLevel[] = [];
	for (let depth = 0; depth <= parts.length; depth++) {
		const folder = parts.slice(0, depth).join("/");
		const level = await loadLevel(path.join(start.workspace, ...parts.slice(0, depth)), folder);
		if (level) levels.push(level);
	}
	return levels;
}

async function loadLevel(folderReal: string, folder: string): Promise<IgnoreLevel | undefined> {
	const text = await readFile(path.join(folderReal, ".gitignore"), "utf8").catch(() => undefined);
	return text === undefined ? undefined : { folder, rules: ignore().add(text) };
}

/**
 * The real path to read for a directory entry that should count as a file, or undefined: FIFOs
 * and devices would hang a reader, and links are followed only to files inside the workspace.
 */
async function regularFileReal(entry: Dirent, real: string, workspace: string): Promise<string | undefined> {
	if (entry.isFile()) return real;
	if (!entry.isSymbolicLink()) return undefined;
	try {
		const target = await realpath(real);
		if (!isInside(target, workspace)) return undefined;
		return (await stat(target)).isFile() ? target : undefined;
	} catch {
		// A dangling or looping link has nothing to read.
		return undefined;
	}
}

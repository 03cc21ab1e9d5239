import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

/**
 * The ignore rules of the git repository the workspace lies in (when it is a subfolder of it, not
 * its top), as patterns relative to the workspace: the `.gitignore` of every folder from the
 * repository's top down to the workspace's parent, and the top's `.git/info/exclude`. The shadow
 * store's work tree is the workspace, so git would never read them (docs/checkpoints.md). Lowest
 * precedence first, as git reads them; the workspace's own `.gitignore` files still win.
 */
export function enclosingIgnores(workspaceDir: string): string[] {
	const top = enclosingTop(workspaceDir);
	if (top === undefined) return [];
	const folders: string[] = [];
	for (let dir = dirname(workspaceDir); ; dir = dirname(dir)) {
		folders.unshift(dir);
		if (dir === top) break;
	}
	const sources = [
		{ dir: top, file: join(top, ".git", "info", "exclude") },
		...folders.map((dir) => ({ dir, file: join(dir, ".gitignore") })),
	];
	const patterns: string[] = [];
	for (const { dir, file } of sources) {
		const rel = relative(dir, workspaceDir).split(sep);
		for (const line of readLines(file)) {
			const moved = relativeTo(line, rel);
			if (moved !== undefined) patterns.push(moved);
		}
	}
	return patterns;
}

/** The top of the repository holding `workspaceDir` strictly above it; none when the workspace is a top itself. */
function enclosingTop(workspaceDir: string): string | undefined {
	if (existsSync(join(workspaceDir, ".git"))) return undefined;
	for (let dir = dirname(workspaceDir); dir !== dirname(dir); dir = dirname(dir)) {
		if (existsSync(join(dir, ".git"))) return dir;
	}
	return undefined;
}

function readLines(file: string): string[] {
	try {
		return readFileSync(file, "utf8").split(/\r?\n/);
	} catch {
		return [];
	}
}

/**
 * One pattern of a folder `rel` above the workspace, rewritten for the workspace: a pattern with no
 * slash matches at any depth and stays; an anchored one keeps its part below the workspace when its
 * leading parts match the way down to it, and is dropped otherwise (it names something elsewhere).
 */
function relativeTo(line: string, rel: readonly string[]): string | undefined {
	const pattern = line.trimEnd();
	if (pattern === "" || pattern.startsWith("#")) return undefined;
	const negated = pattern.startsWith("!");
	const body = negated ? pattern.slice(1) : pattern;
	const folderOnly = body.endsWith("/");
	const core = folderOnly ? body.slice(0, -1) : body;
	if (!core.includes("/") || core.startsWith("**/")) return pattern;
	const parts = (core.startsWith("/") ? core.slice(1) : core).split("/");
	for (const [i, step] of rel.entries()) {
		const part = parts[i];
		if (part === "**") return `${negated ? "!" : ""}**/${parts.slice(i + 1).join("/")}${folderOnly ? "/" : ""}`;
		// Ran out on the way down: the pattern names the workspace or a folder holding it, not a file in it.
		if (part === undefined || i === parts.length - 1 || !segmentMatches(part, step)) return undefined;
	}
	return `${negated ? "!" : ""}/${parts.slice(rel.length).join("/")}${folderOnly ? "/" : ""}`;
}

/** Whether one glob segment (`*`, `?`, `[...]`) matches one folder name. */
function segmentMatches(glob: string, name: string): boolean {
	const source = glob
		.replace(/[.+^${}()|\\]/g, "\\$&")
		.replace(/\*/g, "[^/]*")
		.replace(/\?/g, "[^/]");
	try {
		return new RegExp(`^${source}$`).test(name);
	} catch {
		return glob === name;
	}
}

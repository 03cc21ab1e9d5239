import { execFile } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * The ignore rules git would apply to the workspace that the shadow store's git does not read
 * itself (its work tree is the workspace, its config neither global nor system), as patterns
 * relative to the workspace, lowest precedence first as git reads them: the user's global excludes
 * (`core.excludesFile`, by default `$XDG_CONFIG_HOME/git/ignore`), the `info/exclude` of the
 * repository the workspace is in (or is the top of), and, when the workspace is a subfolder of it,
 * the `.gitignore` of every folder from the repository's top down to the workspace's parent. The
 * workspace's own `.gitignore` files still win over all of these (docs/checkpoints.md).
 */
export async function checkpointIgnores(workspaceDir: string): Promise<string[]> {
	const above = enclosingTop(workspaceDir);
	const top = above ?? (existsSync(join(workspaceDir, ".git")) ? workspaceDir : undefined);
	const folders: string[] = [];
	for (let dir = dirname(workspaceDir); above !== undefined; dir = dirname(dir)) {
		folders.unshift(dir);
		if (dir === above) break;
	}
	const global = await globalExcludesFile();
	const sources = [
		...(global === undefined ? [] : [{ dir: top ?? workspaceDir, file: global }]),
		...(top === undefined ? [] : [{ dir: top, file: join(commonGitDir(top), "info", "exclude") }]),
		...folders.map((dir) => ({ dir, file: join(dir, ".gitignore") })),
	];
	const patterns: string[] = [];
	for (const { dir, file } of sources) {
		const rel = dir === workspaceDir ? [] : relative(dir, workspaceDir).split(sep);
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

/**
 * Where the repository at `top` keeps `info/exclude`: its `.git` folder, or for a worktree or a
 * submodule (`.git` a file, `gitdir: …`) the folder that names, or the main repository's it shares.
 */
function commonGitDir(top: string): string {
	const dotGit = join(top, ".git");
	if (statSync(dotGit, { throwIfNoEntry: false })?.isFile() !== true) return dotGit;
	const pointed = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
	if (pointed === undefined) return dotGit;
	const gitDir = resolve(top, pointed);
	const common = readLines(join(gitDir, "commondir"))[0]?.trim();
	return common === undefined || common === "" ? gitDir : resolve(gitDir, common);
}

/**
 * The user's global excludes file as their git reads it (`core.excludesFile` in the global
 * config, `~` expanded; unset: `$XDG_CONFIG_HOME/git/ignore` or `~/.config/git/ignore`).
 */
function globalExcludesFile(): Promise<string | undefined> {
	const env = process.env;
	const fallback = () => {
		const config = env.XDG_CONFIG_HOME || (env.HOME === undefined ? undefined : join(env.HOME, ".config"));
		return config === undefined ? undefined : join(config, "git", "ignore");
	};
	return new Promise((done) => {
		execFile("git", ["config", "--global", "--path", "--get", "core.excludesFile"], { env }, (error, stdout) => {
			const configured = stdout.trim();
			done(error === null && configured !== "" ? configured : fallback());
		});
	});
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

import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";

/** A path a file tool was asked to use that the workspace rules refuse. The message is for the model. */
export class WorkspaceError extends Error {
	override readonly name = "WorkspaceError";

	constructor(
		message: string,
		/** The path exactly as the model gave it. */
		readonly requested: string,
	) {
		super(message);
	}
}

/**
 * A requested path after the guard accepted it.
 * Contract: `real` has no symbolic link left in it (every link was followed) and lies inside
 * `workspace`; tools read and write `real`, never the requested spelling.
 */
export interface WorkspacePath {
	/** As the model gave it: for messages. */
	readonly requested: string;
	/** The real path; it may not exist yet (for a file about to be written). */
	readonly real: string;
	/** The workspace's real path. */
	readonly workspace: string;
	/** `real` relative to the workspace with "/" separators; "." for the workspace itself. */
	readonly relative: string;
}

/** Links followed while resolving one path before it counts as a loop (Linux's own limit). */
const MAX_LINKS = 40;

/**
 * Resolves `requested` (relative to the workspace, or absolute) to its real path and refuses it
 * when that is not inside the workspace's real path: `../`, absolute paths elsewhere, and symbolic
 * links that lead out are all refused, whether the path exists yet or not.
 * Throws a WorkspaceError naming the requested path.
 */
export async function resolveInWorkspace(requested: string, workspaceDir: string): Promise<WorkspacePath> {
	if (requested.includes("\0")) throw new WorkspaceError(`Path "${requested}" contains a NUL character.`, requested);
	const workspace = await realpath(workspaceDir);
	const real = await realPathOf(path.resolve(workspaceDir, requested));
	if (!isInside(real, workspace)) {
		const where = real === path.resolve(workspace, requested) ? "" : ` (it resolves to ${real})`;
		throw new WorkspaceError(
			`Path "${requested}" is outside the workspace ${workspace}${where}; file tools only reach files inside the workspace.`,
			requested,
		);
	}
	return { requested, real, workspace, relative: toRelative(workspace, real) };
}

/** True when `candidate` is `root` or below it (both real, absolute paths). */
export function isInside(candidate: string, root: string): boolean {
	const relative = path.relative(root, candidate);
	return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** `target` relative to `root`, with "/" separators (how .gitignore rules and globs spell paths). */
export function toRelative(root: string, target: string): string {
	const relative = path.relative(root, target);
	return relative === "" ? "." : relative.split(path.sep).join("/");
}

/**
 * The real path of `absolute`, which may not exist. `fs.realpath` answers for existing paths; for
 * the rest we resolve the parent and look at the last component ourselves, because a dangling link
 * (`out -> /elsewhere/new-file`) makes realpath fail, yet writing through it would land outside.
 */
async function realPathOf(absolute: string, linksFollowed = 0): Promise<string> {
	try {
		return await realpath(absolute);
	} catch (error) {
		if (!isMissing(error)) throw error;
	}
	const parent = path.dirname(absolute);
	if (parent === absolute) return absolute;
	const realParent = await realPathOf(parent, linksFollowed);
	const candidate = path.join(realParent, path.basename(absolute));
	const stats = await lstat(candidate).catch((error: unknown) => {
		if (isMissing(error)) return undefined;
		throw error;
	});
	if (!stats?.isSymbolicLink()) return candidate;
	if (linksFollowed >= MAX_LINKS) throw new Error(`Too many levels of symbolic links at ${candidate}.`);
	// A relative link target is relative to the directory that holds the link, as the kernel reads it.
	return realPathOf(path.resolve(realParent, await readlink(candidate)), linksFollowed + 1);
}

function isMissing(error: unknown): boolean {
	const code = (error as NodeJS.ErrnoException).code;
	return code === "ENOENT" || code === "ENOTDIR";
}

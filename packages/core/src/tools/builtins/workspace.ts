import type { Dirent } from "node:fs";
import { constants } from "node:fs";
import { type FileHandle, lstat, open, readdir, readlink, realpath, unlink } from "node:fs/promises";
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
	/** Real paths no file tool reads, lists or writes (see ToolContext.deniedPaths); walks skip them. */
	readonly denied: readonly string[];
	/** `real` relative to the workspace with "/" separators; "." for the workspace itself. */
	readonly relative: string;
}

/** Links followed while resolving one path before it counts as a loop (Linux's own limit). */
const MAX_LINKS = 40;

/**
 * Resolves `requested` (relative to the workspace, or absolute) to its real path and refuses it
 * when that is not inside the workspace: `../`, absolute paths elsewhere, and symbolic links that
 * lead out are all refused, whether the path exists yet or not; so is a path inside one of
 * `denied` (the omniloop home, secrets files), even inside the workspace.
 * `workspaceDir` is the real path the Session was confined to when it was made: it is never
 * resolved again, so a workspace folder swapped for a link later cannot move the tools elsewhere.
 * Throws a WorkspaceError naming the requested path.
 */
export async function resolveInWorkspace(
	requested: string,
	workspaceDir: string,
	denied: readonly string[] = [],
): Promise<WorkspacePath> {
	if (requested.includes("\0")) throw new WorkspaceError(`Path "${requested}" contains a NUL character.`, requested);
	const workspace = path.resolve(workspaceDir);
	await checkStillReal(workspace, requested);
	const real = await realPathOf(path.resolve(workspace, requested));
	if (!isInside(real, workspace)) {
		const where = real === path.resolve(workspace, requested) ? "" : ` (it resolves to ${real})`;
		throw new WorkspaceError(
			`Path "${requested}" is outside the workspace ${workspace}${where}; file tools only reach files inside the workspace.`,
			requested,
		);
	}
	const protectedBy = deniedRoot(real, denied);
	if (protectedBy !== undefined) {
		throw new WorkspaceError(
			`Path "${requested}" is inside ${protectedBy}, omniloop's own data (its token, credentials and every Session's Trace); file tools never read, list or write it.`,
			requested,
		);
	}
	return { requested, real, workspace, relative: toRelative(workspace, real), denied };
}

/**
 * Refuses a write to one of `readOnly` (ToolContext.readOnlyPaths: the project's configuration).
 * Throws a WorkspaceError naming the requested path.
 */
export function checkWritable(target: WorkspacePath, readOnly: readonly string[] = []): void {
	if (!readOnly.includes(target.real)) return;
	throw new WorkspaceError(
		`Path "${target.requested}" is omniloop's project configuration (${target.real}): it says which models, MCP servers and approvals the next Session gets, so no tool may change it. Ask the person to edit it.`,
		target.requested,
	);
}

/**
 * Opens the file the guard accepted, and checks the descriptor is that file: its path, read back
 * from /proc, must still be `target.real`. Between resolveInWorkspace and an open by name, a
 * command running meanwhile could swap a folder on the way for a link out of the workspace; the
 * open descriptor is what is then read or written, so that is what is checked. `create`: the file
 * may be made (a write); one made at the wrong place by such a swap is removed again. Where /proc
 * is missing (not Linux), the guard's check by name stands alone.
 * Throws a WorkspaceError naming the requested path.
 */
export async function openChecked(target: WorkspacePath, mode: "read" | "update" | "create"): Promise<FileHandle> {
	// Non-blocking: a FIFO swapped in for the file would otherwise hold the open (and a thread of
	// the process's file I/O) forever; it is refused below as not a regular file.
	const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;
	const base = O_NOFOLLOW | O_NONBLOCK;
	let handle: FileHandle;
	let created = false;
	try {
		if (mode === "create") {
			try {
				handle = await open(target.real, O_WRONLY | O_CREAT | O_EXCL | base, 0o666);
				created = true;
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
				handle = await open(target.real, O_WRONLY | base);
			}
		} else handle = await open(target.real, (mode === "read" ? O_RDONLY : O_RDWR) | base);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ELOOP") throw swapped(target, "it became a link while it was being opened");
		if (code === "ENXIO") throw swapped(target, "it is not a regular file");
		throw error;
	}
	const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
	if (opened !== undefined && opened !== target.real) {
		await handle.close();
		if (created) await unlink(opened).catch(() => {});
		throw swapped(target, `a folder on its way was swapped while it was being opened: it led to ${opened}`);
	}
	if (!(await handle.stat()).isFile()) {
		await handle.close();
		throw swapped(target, "it is not a regular file");
	}
	return handle;
}

/**
 * The entries of the folder at `real` (a real path the guard accepted), read through a descriptor
 * checked to be that folder, as openChecked checks a file: a command running meanwhile could swap
 * it, or a folder on its way, for a link out of the workspace (into the omniloop home) between the
 * check by name and the read. The entries are read from the descriptor (/proc/self/fd), so what
 * is listed is the folder that was checked. Where /proc is missing, the check by name stands alone.
 * Throws a FolderSwappedError when the folder is not where it was.
 */
export async function readFolderChecked(real: string): Promise<Dirent[]> {
	const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;
	let handle: FileHandle;
	try {
		handle = await open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ELOOP" || code === "ENOTDIR") throw new FolderSwappedError(real, "it is no longer a folder");
		throw error;
	}
	try {
		const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
		if (opened === undefined) return await readdir(real, { withFileTypes: true });
		if (opened !== real) throw new FolderSwappedError(real, `a folder on its way was swapped: it led to ${opened}`);
		return await readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true });
	} finally {
		await handle.close();
	}
}

/** A folder a walk or a listing was to read had been swapped for a link (see readFolderChecked). */
export class FolderSwappedError extends Error {
	override readonly name = "FolderSwappedError";

	constructor(
		readonly folder: string,
		readonly why: string,
	) {
		super(`${folder} was not read: ${why}`);
	}
}

function swapped(target: WorkspacePath, why: string): WorkspaceError {
	return new WorkspaceError(
		`Path "${target.requested}" was not used: ${why}. File tools only reach files inside the workspace.`,
		target.requested,
	);
}

/** The denied path `real` lies in, if any. */
export function deniedRoot(real: string, denied: readonly string[]): string | undefined {
	return denied.find((root) => isInside(real, root));
}

/**
 * Refuses every path once the workspace's real path is no longer real (the folder was replaced by
 * a link, or moved): following it would take the tools wherever the link now points.
 */
async function checkStillReal(workspace: string, requested: string): Promise<void> {
	let now: string;
	try {
		now = await realpath(workspace);
	} catch {
		throw new WorkspaceError(`The workspace ${workspace} no longer exists; no path in it can be used.`, requested);
	}
	if (now !== workspace) {
		throw new WorkspaceError(
			`The workspace ${workspace} now resolves to ${now} (it was replaced by a link after the Session started); file tools stay in the folder the Session was made in and refuse "${requested}".`,
			requested,
		);
	}
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

import {
	closeSync,
	constants,
	existsSync,
	fstatSync,
	openSync,
	readFileSync,
	readlinkSync,
	realpathSync,
} from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { isInside } from "../tools/builtins/workspace.js";

/** The file name read for project instructions (the shared convention: Codex, OpenCode, Cursor, …). */
export const INSTRUCTIONS_FILE = "AGENTS.md";
/** A file over this many bytes is cut (with a note) unless `omniloop.yaml` says otherwise. */
export const DEFAULT_INSTRUCTIONS_MAX_BYTES = 32 * 1024;

/** One AGENTS.md that was read: where, how big it is, and whether it was cut to the limit. */
export interface InstructionFile {
	path: string;
	/** Its size on disk. */
	bytes: number;
	truncated: boolean;
}

/**
 * The project instructions of a Session, fixed when it is made (and on a reload only): the
 * files read and the text that goes into the system prompt. Plain JSON: it is kept in the Trace,
 * so a resumed Session sends the same bytes (the provider's prompt cache holds).
 */
export interface ProjectInstructions {
	files: InstructionFile[];
	/** The block the system prompt ends with; "" when no file was found. */
	text: string;
}

export interface InstructionSources {
	/** The omniloop home: its AGENTS.md is the person's own, read first. */
	home: string;
	workspaceDir: string;
	/** Where the walk down to `workspaceDir` starts; default: the enclosing git repository's top, else `workspaceDir`. */
	workspaceRoot?: string | undefined;
	maxBytes: number;
	/** The host's files no tool reads (its store, a credentials file): no project's AGENTS.md may lead into one either. */
	deniedPaths?: readonly string[] | undefined;
}

/**
 * Reads `<home>/AGENTS.md`, then every `AGENTS.md` from the workspace root down to the workspace
 * folder (nearest last, so the nearest has the last word). See docs/project-instructions.md.
 */
export function loadInstructions(sources: InstructionSources): ProjectInstructions {
	const workspaceDir = resolve(sources.workspaceDir);
	const root = resolve(sources.workspaceRoot ?? gitTopOf(workspaceDir) ?? workspaceDir);
	const own = join(sources.home, INSTRUCTIONS_FILE);
	const paths = [own, ...foldersFrom(root, workspaceDir).map(agentsFileIn)];
	const files: InstructionFile[] = [];
	const sections: string[] = [];
	// The person's own file is theirs to link anywhere; a project's (a clone, or one a command
	// wrote) may only lead to a file of the project, never into the omniloop home (its token,
	// every Session's Trace) or another denied path (the server's store), which would put that
	// file in the prompt and the Trace. Real paths, resolved once for every file.
	const project = realOr(root);
	const denied = [sources.home, ...(sources.deniedPaths ?? [])].map(realOr);
	const inProject = (real: string) => isInside(real, project) && !denied.some((dir) => isInside(real, dir));
	for (const path of new Set(paths)) {
		const read = readCapped(path, sources.maxBytes, path === own ? () => true : inProject);
		if (read === undefined) continue;
		files.push({ path, bytes: read.bytes, truncated: read.truncated });
		sections.push(`## ${path}\n\n${read.text}`);
	}
	return { files, text: sections.length === 0 ? "" : instructionsBlock(sections) };
}

/** No instructions: a Session made before they existed, or with none found. */
export function noInstructions(): ProjectInstructions {
	return { files: [], text: "" };
}

/** The system prompt with the instructions block after it, as every request sends it. */
export function withInstructions(system: string | undefined, instructions: ProjectInstructions): string | undefined {
	if (instructions.text === "") return system;
	return system === undefined ? instructions.text : `${system}\n\n${instructions.text}`;
}

function instructionsBlock(sections: readonly string[]): string {
	return [
		"[project_instructions]",
		"Instructions the person wrote for this workspace, from AGENTS.md files. Later files are nearer the workspace folder and take precedence over earlier ones. Follow them unless the person says otherwise in the conversation.",
		"",
		sections.join("\n\n"),
		"[/project_instructions]",
	].join("\n");
}

function agentsFileIn(dir: string): string {
	return join(dir, INSTRUCTIONS_FILE);
}

/** `root`, then each folder on the way down to `dir`; just `dir` when it does not lie inside `root`. */
function foldersFrom(root: string, dir: string): string[] {
	const rel = relative(root, dir);
	if (rel.startsWith("..") || resolve(root, rel) !== dir) return [dir];
	const folders = [root];
	let at = root;
	for (const part of rel === "" ? [] : rel.split(sep)) {
		at = join(at, part);
		folders.push(at);
	}
	return folders;
}

/** The nearest folder at or above `dir` holding a `.git` (a folder, or a worktree's file). */
export function gitTopOf(dir: string): string | undefined {
	for (let at = dir; ; at = dirname(at)) {
		if (existsSync(join(at, ".git"))) return at;
		if (dirname(at) === at) return undefined;
	}
}

/** The real path of the file open as `fd` (from /proc; by name where /proc is missing). */
function realPathOf(fd: number, path: string): string {
	try {
		return readlinkSync(`/proc/self/fd/${fd}`);
	} catch {
		return realpathSync(path);
	}
}

/** `path`'s real path, or `path` resolved when it does not exist (a denied file not made yet). */
function realOr(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return resolve(path);
	}
}

interface CappedText {
	text: string;
	bytes: number;
	truncated: boolean;
}

/**
 * The file's text, cut to `maxBytes` (on a character boundary) with a note saying so; undefined
 * when there is no such file, or it leads where `allowed` refuses. It is read through a descriptor
 * whose real path is what `allowed` judged, so a link swapped meanwhile is not followed elsewhere.
 */
function readCapped(path: string, maxBytes: number, allowed: (real: string) => boolean): CappedText | undefined {
	let bytes: Buffer;
	let fd: number | undefined;
	try {
		// Non-blocking: a FIFO named AGENTS.md must not hold the Session's start.
		fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
		if (!fstatSync(fd).isFile() || !allowed(realPathOf(fd, path))) return undefined;
		bytes = readFileSync(fd);
	} catch {
		return undefined;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
	if (bytes.length <= maxBytes)
		return { text: bytes.toString("utf8").trimEnd(), bytes: bytes.length, truncated: false };
	let end = maxBytes;
	// Back off continuation bytes (10xxxxxx) so a multi-byte character is not split.
	while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
	const kept = bytes.subarray(0, end).toString("utf8");
	const note = `[omniloop: this file is ${bytes.length} bytes; only its first ${end} bytes are included (the limit is instructions.maxBytes in omniloop.yaml)]`;
	return { text: `${kept.trimEnd()}\n\n${note}`, bytes: bytes.length, truncated: true };
}

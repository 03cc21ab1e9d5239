import picomatch from "picomatch";
import { z } from "zod";
import { tool } from "../tool.js";
import { formatCount, limitOutput } from "./output-limit.js";
import { looksBinary, MAX_TEXT_FILE_BYTES, statExisting } from "./text-file.js";
import { MAX_WALKED_FILES, type WalkedFile, walkFiles } from "./walk-files.js";
import { openChecked, resolveInWorkspace, type WorkspacePath } from "./workspace.js";

/** The search stops at this many matching lines: past it the model should narrow the search. */
export const MAX_GREP_MATCHES = 500;

/** A matching line longer than this is cut in the output (minified files, data). */
const MAX_MATCH_LINE_CHARS = 500;

const parameters = z.object({
	pattern: z
		.string()
		.min(1)
		.describe('A JavaScript regular expression, without slashes or flags, e.g. "function\\s+\\w+".'),
	path: z
		.string()
		.min(1)
		.optional()
		.describe(
			"The folder or file to search, relative to the workspace (or absolute inside it). Default: the workspace.",
		),
	glob: z
		.string()
		.min(1)
		.optional()
		.describe(
			'Only search files matching this glob, e.g. "*.ts" (a pattern without "/" matches file names) or "src/**/*.md".',
		),
	ignore_case: z.boolean().optional().describe("Match letters regardless of case. Default: false."),
});

/** What one search found, and what it had to leave out. */
interface SearchResult {
	lines: string[];
	stoppedAtCap: boolean;
	skippedLarge: number;
}

export const grepTool = tool({
	name: "grep",
	description:
		"Searches the text files of the workspace for lines matching a JavaScript regular expression and returns them as `file:line: text` " +
		`(file relative to the workspace). Skips .gitignore'd files, .git/ and binary files; stops at ${formatCount(MAX_GREP_MATCHES)} matching lines.`,
	parameters,
	readOnly: true,
	async execute(args, ctx) {
		const regex = compile(args.pattern, args.ignore_case ?? false);
		const requested = args.path ?? ".";
		const start = await resolveInWorkspace(requested, ctx.workspaceDir, ctx.deniedPaths);
		const { files, stoppedEarly } = await filesToSearch(start, ctx.signal);
		const result = await search(files.filter(globFilter(args.glob)), start, regex, ctx.signal);
		const notes = searchNotes(result, stoppedEarly);
		if (result.lines.length === 0) {
			return [
				`No lines match /${args.pattern}/ in "${requested}"${args.glob ? ` (files matching "${args.glob}")` : ""}.`,
				...notes,
			].join("\n");
		}
		return limitOutput([...result.lines, ...notes].join("\n"), ctx);
	},
});

function compile(pattern: string, ignoreCase: boolean): RegExp {
	try {
		return new RegExp(pattern, ignoreCase ? "i" : "");
	} catch (error) {
		throw new Error(`Invalid regular expression in pattern "${pattern}": ${(error as Error).message}`);
	}
}

/**
 * A pattern without "/" matches file names, as in ripgrep's --glob; one with "/" matches the path
 * below the search folder. (picomatch's own `basename` option applies to slashed patterns too.)
 */
function globFilter(glob: string | undefined): (file: WalkedFile) => boolean {
	if (glob === undefined) return () => true;
	const matches = picomatch(glob, { dot: true });
	if (glob.includes("/")) return (file) => matches(file.fromStart);
	return (file) => matches(file.fromStart.slice(file.fromStart.lastIndexOf("/") + 1));
}

/** A folder is walked; a file the model named is searched alone, even if .gitignore'd. */
async function filesToSearch(
	start: WorkspacePath,
	signal: AbortSignal,
): Promise<{ files: WalkedFile[]; stoppedEarly: boolean }> {
	const stats = await statExisting(start);
	if (stats.isDirectory()) return walkFiles(start, signal);
	if (!stats.isFile()) throw new Error(`Path "${start.requested}" is not a regular file or a folder.`);
	const name = start.relative.split("/").pop() ?? start.relative;
	return { files: [{ real: start.real, relative: start.relative, fromStart: name }], stoppedEarly: false };
}

async function search(
	files: readonly WalkedFile[],
	start: WorkspacePath,
	regex: RegExp,
	signal: AbortSignal,
): Promise<SearchResult> {
	const result: SearchResult = { lines: [], stoppedAtCap: false, skippedLarge: 0 };
	for (const file of files) {
		signal.throwIfAborted();
		const text = await readSearchable(
			{ ...start, requested: file.relative, real: file.real, relative: file.relative },
			result,
		);
		if (text === undefined) continue;
		const lines = text.split(/\r?\n/);
		// The empty string after a final newline is not a line of the file.
		if (lines.at(-1) === "") lines.pop();
		for (const [index, line] of lines.entries()) {
			if (!regex.test(line)) continue;
			if (result.lines.length >= MAX_GREP_MATCHES) {
				result.stoppedAtCap = true;
				return result;
			}
			result.lines.push(`${file.relative}:${index + 1}: ${cutLine(line)}`);
		}
	}
	return result;
}

/**
 * The file's text, or undefined for a file grep skips (binary, too large, gone since the walk, or
 * swapped for a link out of the workspace since: it is read through a checked descriptor).
 */
async function readSearchable(file: WorkspacePath, result: SearchResult): Promise<string | undefined> {
	let handle: Awaited<ReturnType<typeof openChecked>> | undefined;
	try {
		handle = await openChecked(file, "read");
		if ((await handle.stat()).size > MAX_TEXT_FILE_BYTES) {
			result.skippedLarge++;
			return undefined;
		}
		const bytes = await handle.readFile();
		return looksBinary(bytes) ? undefined : bytes.toString("utf8");
	} catch {
		return undefined;
	} finally {
		await handle?.close();
	}
}

function searchNotes(result: SearchResult, walkStoppedEarly: boolean): string[] {
	const notes: string[] = [];
	if (result.stoppedAtCap) {
		notes.push(
			`[stopped at ${formatCount(MAX_GREP_MATCHES)} matching lines; narrow the pattern, the path or the glob to see the rest]`,
		);
	}
	if (walkStoppedEarly) {
		notes.push(`[only the first ${formatCount(MAX_WALKED_FILES)} files were searched; give a narrower path]`);
	}
	if (result.skippedLarge > 0) {
		notes.push(
			`[${formatCount(result.skippedLarge)} file(s) over ${formatCount(MAX_TEXT_FILE_BYTES)} bytes were not searched; use shell for those]`,
		);
	}
	return notes;
}

function cutLine(line: string): string {
	return line.length <= MAX_MATCH_LINE_CHARS ? line : `${line.slice(0, MAX_MATCH_LINE_CHARS)}… [line cut]`;
}

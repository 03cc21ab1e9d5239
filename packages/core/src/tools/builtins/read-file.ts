import type { FileHandle } from "node:fs/promises";
import { createInterface } from "node:readline";
import { z } from "zod";
import { tool } from "../tool.js";
import { DEFAULT_OUTPUT_LIMIT, formatCount, savedOutputPath } from "./output-limit.js";
import { binaryFileError, looksBinary, readSample, statRegularFile } from "./text-file.js";
import { openChecked, resolveInWorkspace } from "./workspace.js";

/** A longer line is cut: minified code would otherwise spend the whole budget on one line. */
export const MAX_LINE_CHARS = 2_000;

const parameters = z.object({
	path: z.string().min(1).describe("The file to read, relative to the workspace (or absolute inside it)."),
	offset: z.number().int().min(1).optional().describe("The first line to read, counting from 1. Default: 1."),
	limit: z
		.number()
		.int()
		.min(1)
		.optional()
		.describe(`How many lines to read. Default and maximum: ${DEFAULT_OUTPUT_LIMIT.maxLines}.`),
});

/** The lines read_file shows, and what it learned about the rest of the file on the way. */
interface LineWindow {
	/** Already numbered, `cat -n` style. */
	numbered: string[];
	firstLine: number;
	totalLines: number;
	/** Set when the character cap stopped the window before `limit` lines. */
	stoppedByChars: boolean;
}

export const readFileTool = tool({
	name: "read_file",
	description:
		"Reads a text file in the workspace (or a cut tool output's saved whole text) and returns its lines numbered like `cat -n` (number, tab, text). " +
		`Shows at most ${formatCount(DEFAULT_OUTPUT_LIMIT.maxLines)} lines or ${formatCount(DEFAULT_OUTPUT_LIMIT.maxChars)} characters per call; ` +
		"use offset and limit to read a long file in parts. The line numbers are not part of the file: leave them out of edit_file's old_string.",
	parameters,
	readOnly: true,
	async execute(args, ctx) {
		const target =
			(await savedOutputPath(args.path, ctx.sessionDir)) ??
			(await resolveInWorkspace(args.path, ctx.workspaceDir, ctx.deniedPaths));
		await statRegularFile(target);
		const handle = await openChecked(target, "read");
		let window: LineWindow;
		const offset = args.offset ?? 1;
		try {
			if (looksBinary(await readSample(handle))) throw binaryFileError(args.path);
			const limit = Math.min(args.limit ?? DEFAULT_OUTPUT_LIMIT.maxLines, DEFAULT_OUTPUT_LIMIT.maxLines);
			window = await readLineWindow(handle, offset, limit, ctx.signal);
		} finally {
			await handle.close();
		}
		if (window.totalLines === 0) return `[File "${args.path}" is empty.]`;
		if (offset > window.totalLines) {
			throw new Error(
				`offset ${offset} is past the end of "${args.path}", which has ${formatCount(window.totalLines)} lines.`,
			);
		}
		return window.numbered.join("\n") + windowNote(window, args.path);
	},
});

async function readLineWindow(
	handle: FileHandle,
	offset: number,
	limit: number,
	signal: AbortSignal,
): Promise<LineWindow> {
	const window: LineWindow = { numbered: [], firstLine: offset, totalLines: 0, stoppedByChars: false };
	let chars = 0;
	let full = false;
	const input = handle.createReadStream({ encoding: "utf8", start: 0, autoClose: false });
	const lines = createInterface({ input, crlfDelay: Infinity });
	try {
		// Keep counting past the window: the note tells the model how much file is left.
		for await (const line of lines) {
			signal.throwIfAborted();
			window.totalLines++;
			if (full || window.totalLines < offset) continue;
			const numbered = `${String(window.totalLines).padStart(6)}\t${cutLine(line)}`;
			if (window.numbered.length > 0 && chars + numbered.length + 1 > DEFAULT_OUTPUT_LIMIT.maxChars) {
				window.stoppedByChars = true;
				full = true;
				continue;
			}
			window.numbered.push(numbered);
			chars += numbered.length + 1;
			full = window.numbered.length >= limit;
		}
	} finally {
		lines.close();
	}
	return window;
}

function cutLine(line: string): string {
	if (line.length <= MAX_LINE_CHARS) return line;
	return `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${formatCount(line.length)} characters]`;
}

/** Says which lines were shown when that is not the whole file, and how to read on. */
function windowNote(window: LineWindow, requested: string): string {
	const lastShown = window.firstLine + window.numbered.length - 1;
	if (window.firstLine === 1 && lastShown === window.totalLines) return "";
	const why = window.stoppedByChars
		? ` (the ${formatCount(DEFAULT_OUTPUT_LIMIT.maxChars)}-character cap was reached)`
		: "";
	const more =
		lastShown < window.totalLines
			? `; call read_file with path "${requested}" and offset ${lastShown + 1} to read on`
			: "";
	return `\n[showing lines ${formatCount(window.firstLine)}–${formatCount(lastShown)} of ${formatCount(window.totalLines)}${why}${more}]`;
}

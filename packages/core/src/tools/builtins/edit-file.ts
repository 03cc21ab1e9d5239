import type { FileHandle } from "node:fs/promises";
import { z } from "zod";
import { tool } from "../tool.js";
import { formatCount } from "./output-limit.js";
import { overwrite, readWholeTextFile, statRegularFile } from "./text-file.js";
import { checkWritable, openChecked, resolveInWorkspace, type WorkspacePath } from "./workspace.js";

const parameters = z.object({
	path: z.string().min(1).describe("The file to edit, relative to the workspace (or absolute inside it)."),
	old_string: z
		.string()
		.min(1)
		.describe("The exact text to replace, including whitespace and indentation, without read_file's line numbers."),
	new_string: z.string().describe("The text to put in its place."),
	replace_all: z
		.boolean()
		.optional()
		.describe("Replace every occurrence of old_string. Default: false, and old_string must then occur exactly once."),
});

export const editFileTool = tool({
	name: "edit_file",
	description:
		"Replaces an exact piece of text in a file of the workspace. old_string must match the file exactly " +
		"(whitespace included) and, unless replace_all is true, occur exactly once: include enough surrounding lines to make it unique.",
	parameters,
	async execute(args, ctx) {
		if (args.old_string === args.new_string) {
			throw new Error("old_string and new_string are the same; an edit must change something.");
		}
		const target = await resolveInWorkspace(args.path, ctx.workspaceDir, ctx.deniedPaths);
		checkWritable(target, ctx.readOnlyPaths);
		await statRegularFile(target);
		const handle = await openChecked(target, "update");
		try {
			return await edit(handle, target, args);
		} finally {
			await handle.close();
		}
	},
});

async function edit(handle: FileHandle, target: WorkspacePath, args: z.output<typeof parameters>): Promise<string> {
	const text = await readWholeTextFile(target, handle);
	const positions = occurrences(text, args.old_string);
	if (positions.length === 0) {
		throw new Error(
			`old_string was not found in "${args.path}". It must match the file exactly, whitespace and indentation included; read the file again to copy the current text.`,
		);
	}
	if (positions.length > 1 && !args.replace_all) {
		throw new Error(
			`old_string occurs ${positions.length} times in "${args.path}" (lines ${lineNumbers(text, positions)}); it must be unique: add surrounding lines to old_string, or set replace_all to true to replace every occurrence.`,
		);
	}
	const edited = replaceAt(text, positions, args.old_string.length, args.new_string);
	await overwrite(handle, edited);
	const count = positions.length === 1 ? "1 occurrence (line" : `${formatCount(positions.length)} occurrences (lines`;
	return `Edited "${args.path}": replaced ${count} ${lineNumbers(text, positions)}).`;
}

/** Start offsets of the non-overlapping occurrences of `needle`, left to right (what replace_all replaces). */
export function occurrences(text: string, needle: string): number[] {
	const found: number[] = [];
	for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at);
	return found;
}

/** Splices by offset rather than String.replace, whose `$&`-style patterns would mangle new_string. */
function replaceAt(text: string, positions: readonly number[], length: number, replacement: string): string {
	let result = "";
	let from = 0;
	for (const at of positions) {
		result += text.slice(from, at) + replacement;
		from = at + length;
	}
	return result + text.slice(from);
}

/** "3, 17, 40": where the occurrences start, so the model can look at them. Lists at most ten. */
function lineNumbers(text: string, positions: readonly number[]): string {
	const shown = positions.slice(0, 10).map((at) => String(lineOf(text, at)));
	return positions.length > shown.length ? `${shown.join(", ")}, …` : shown.join(", ");
}

function lineOf(text: string, offset: number): number {
	let line = 1;
	for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
	return line;
}

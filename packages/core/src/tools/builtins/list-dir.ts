import type { Dirent } from "node:fs";
import { readlink } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { tool } from "../tool.js";
import { limitOutput } from "./output-limit.js";
import { statExisting } from "./text-file.js";
import { deniedRoot, FolderSwappedError, readFolderChecked, resolveInWorkspace, WorkspaceError } from "./workspace.js";

const parameters = z.object({
	path: z
		.string()
		.min(1)
		.optional()
		.describe("The folder to list, relative to the workspace (or absolute inside it). Default: the workspace itself."),
});

export const listDirTool = tool({
	name: "list_dir",
	description:
		"Lists the entries of a folder in the workspace, sorted by name, one per line: folders end with /, " +
		"symbolic links show their target (name -> target). Hidden and .gitignore'd entries are listed too.",
	parameters,
	readOnly: true,
	async execute(args, ctx) {
		const requested = args.path ?? ".";
		const target = await resolveInWorkspace(requested, ctx.workspaceDir, ctx.deniedPaths);
		const stats = await statExisting(target);
		if (!stats.isDirectory()) throw new Error(`Path "${requested}" is a file, not a folder; use read_file to read it.`);
		// The omniloop home is not there as far as the tools go (see ToolContext.deniedPaths).
		const entries = (await readChecked(target.real, requested)).filter(
			(entry) => deniedRoot(path.join(target.real, entry.name), target.denied) === undefined,
		);
		if (entries.length === 0) return `[Folder "${requested}" is empty.]`;
		entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
		const lines = await Promise.all(entries.map((entry) => describeEntry(entry, target.real)));
		return limitOutput(lines.join("\n"), ctx);
	},
});

async function readChecked(real: string, requested: string): Promise<Dirent[]> {
	try {
		return await readFolderChecked(real);
	} catch (error) {
		if (!(error instanceof FolderSwappedError)) throw error;
		throw new WorkspaceError(
			`Path "${requested}" was not listed: ${error.why}. File tools only reach files inside the workspace.`,
			requested,
		);
	}
}

/**
 * One listing line. A link is shown with its target rather than followed: where it leads decides
 * whether the other tools may use it, and the model should see that.
 */
async function describeEntry(entry: Dirent, folder: string): Promise<string> {
	if (entry.isDirectory()) return `${entry.name}/`;
	if (entry.isSymbolicLink()) return `${entry.name} -> ${await readlink(path.join(folder, entry.name))}`;
	return entry.name;
}

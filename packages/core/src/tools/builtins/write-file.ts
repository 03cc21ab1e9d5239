import type { Stats } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { tool } from "../tool.js";
import { formatCount } from "./output-limit.js";
import { overwrite } from "./text-file.js";
import { checkWritable, openChecked, resolveInWorkspace } from "./workspace.js";

const parameters = z.object({
	path: z.string().min(1).describe("The file to write, relative to the workspace (or absolute inside it)."),
	content: z.string().describe("The whole new content of the file."),
});

export const writeFileTool = tool({
	name: "write_file",
	description:
		"Writes a file in the workspace, replacing it if it exists and creating missing parent folders. " +
		"For a change to part of an existing file, prefer edit_file.",
	parameters,
	async execute(args, ctx) {
		const target = await resolveInWorkspace(args.path, ctx.workspaceDir, ctx.deniedPaths);
		checkWritable(target, ctx.readOnlyPaths);
		const existing = await statIfExists(target.real);
		if (existing?.isDirectory()) throw new Error(`Path "${args.path}" is a directory; write_file writes files.`);
		// A FIFO or a device would block the write or swallow it.
		if (existing && !existing.isFile()) throw new Error(`Path "${args.path}" exists and is not a regular file.`);
		await makeParents(target.real, args.path);
		const handle = await openChecked(target, "create");
		try {
			await overwrite(handle, args.content);
		} finally {
			await handle.close();
		}
		const lines = args.content === "" ? 0 : args.content.split("\n").length - (args.content.endsWith("\n") ? 1 : 0);
		const bytes = Buffer.byteLength(args.content, "utf8");
		const size = `${formatCount(lines)} line${lines === 1 ? "" : "s"}, ${formatCount(bytes)} byte${bytes === 1 ? "" : "s"}`;
		return `${existing ? "Overwrote" : "Created"} "${args.path}" (${size}).`;
	},
});

async function statIfExists(real: string): Promise<Stats | undefined> {
	try {
		return await stat(real);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		// ENOTDIR: a parent is a file; makeParents reports that in words.
		if (code === "ENOENT" || code === "ENOTDIR") return undefined;
		throw error;
	}
}

async function makeParents(real: string, requested: string): Promise<void> {
	try {
		await mkdir(path.dirname(real), { recursive: true });
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "EEXIST" || code === "ENOTDIR") {
			throw new Error(`Cannot create the folders for "${requested}": part of that path is a file, not a folder.`);
		}
		throw error;
	}
}

import picomatch from "picomatch";
import { z } from "zod";
import { tool } from "../tool.js";
import { formatCount, limitOutput } from "./output-limit.js";
import { statExisting } from "./text-file.js";
import { MAX_WALKED_FILES, walkFiles } from "./walk-files.js";
import { resolveInWorkspace } from "./workspace.js";

/** More paths than this are not useful to a model: it should narrow the pattern instead. */
export const MAX_GLOB_RESULTS = 1_000;

const parameters = z.object({
	pattern: z
		.string()
		.min(1)
		.describe('A glob matched against file paths relative to `path`, e.g. "**/*.ts" or "src/*.{js,json}".'),
	path: z
		.string()
		.min(1)
		.optional()
		.describe("The folder to search in, relative to the workspace (or absolute inside it). Default: the workspace."),
});

export const globTool = tool({
	name: "glob",
	description:
		"Finds files in the workspace whose path (relative to `path`) matches a glob pattern: * and ? within a name, ** across folders, {a,b}, [abc]. " +
		`Files ignored by .gitignore and everything in .git/ are skipped. Returns workspace-relative paths, sorted, at most ${formatCount(MAX_GLOB_RESULTS)}.`,
	parameters,
	readOnly: true,
	async execute(args, ctx) {
		const requested = args.path ?? ".";
		const start = await resolveInWorkspace(requested, ctx.workspaceDir, ctx.deniedPaths);
		if (!(await statExisting(start)).isDirectory()) {
			throw new Error(`Path "${requested}" is a file; glob searches a folder.`);
		}
		const matches = picomatch(args.pattern, { dot: true });
		const walked = await walkFiles(start, ctx.signal);
		const found = walked.files.filter((file) => matches(file.fromStart)).map((file) => file.relative);
		const notes: string[] = [];
		if (walked.stoppedEarly) {
			notes.push(
				`[the search stopped after ${formatCount(MAX_WALKED_FILES)} files; give a narrower path to see the rest]`,
			);
		}
		if (found.length === 0) return [`No files match "${args.pattern}" in "${requested}".`, ...notes].join("\n");
		const shown = found.slice(0, MAX_GLOB_RESULTS);
		if (found.length > shown.length) {
			notes.push(
				`[showing the first ${formatCount(shown.length)} of ${formatCount(found.length)} matching files; narrow the pattern or the path to see the rest]`,
			);
		}
		return limitOutput([...shown, ...notes].join("\n"), ctx);
	},
});

import { readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { globTool } from "../../src/tools/builtins/glob.js";
import { grepTool } from "../../src/tools/builtins/grep.js";
import { call, makeSandbox, type Sandbox } from "./sandbox.js";

let box: Sandbox;
beforeEach(() => {
	box = makeSandbox();
});
afterEach(() => box.cleanup());

/**
 * A small repository: a root .gitignore, a nested one that re-includes a file and ignores a folder,
 * a .git folder, a binary file and an ignored build folder. Every text file says "needle".
 */
function repository(): void {
	box.write(".gitignore", "dist/\n*.log\n");
	box.write(".git/config", "needle");
	box.write(".git/objects/ab/cdef.ts", "needle");
	box.write("src/app.ts", "export const needle = 1;\n");
	box.write("src/util/strings.ts", "// no match here\nconst Needle = 'NEEDLE';\n");
	box.write("src/debug.log", "needle");
	box.write("dist/app.js", "needle");
	box.write("pkg/.gitignore", "!keep.log\ngenerated/\n");
	box.write("pkg/keep.log", "needle");
	box.write("pkg/other.log", "needle");
	box.write("pkg/generated/types.ts", "needle");
	box.write("pkg/lib/index.ts", "import { needle } from '../../src/app';\n");
	box.write("pkg/lib/logo.png", new Uint8Array([0x89, 0x00, ...Buffer.from("needle")]));
	box.write(".github/workflow.yml", "needle: true\n");
}

describe("glob", () => {
	it("matches over the workspace honouring root and nested .gitignore files, skipping .git, sorted", async () => {
		repository();
		const { ctx } = box.context();
		expect(await call(globTool, { pattern: "**/*.ts" }, ctx)).toBe(
			["pkg/lib/index.ts", "src/app.ts", "src/util/strings.ts"].join("\n"),
		);
		expect(await call(globTool, { pattern: "**/*.log" }, ctx)).toBe("pkg/keep.log");
		expect(await call(globTool, { pattern: "**" }, ctx)).toBe(
			[
				".github/workflow.yml",
				".gitignore",
				"pkg/.gitignore",
				"pkg/keep.log",
				"pkg/lib/index.ts",
				"pkg/lib/logo.png",
				"src/app.ts",
				"src/util/strings.ts",
			].join("\n"),
		);
	});

	it("matches relative to `path` but answers with workspace paths, and applies the .gitignore files above it", async () => {
		repository();
		const { ctx } = box.context();
		expect(await call(globTool, { pattern: "*.log", path: "pkg" }, ctx)).toBe("pkg/keep.log");
		expect(await call(globTool, { pattern: "**/*.ts", path: "pkg" }, ctx)).toBe("pkg/lib/index.ts");
		expect(await call(globTool, { pattern: "*", path: "src/util" }, ctx)).toBe("src/util/strings.ts");
	});

	it("walks a folder the model names even when it is ignored itself", async () => {
		repository();
		const { ctx } = box.context();
		expect(await call(globTool, { pattern: "**", path: "dist" }, ctx)).toBe("dist/app.js");
	});

	it("says when nothing matches, and refuses a file or a missing path as the folder", async () => {
		repository();
		const { ctx } = box.context();
		expect(await call(globTool, { pattern: "**/*.rs" }, ctx)).toBe('No files match "**/*.rs" in ".".');
		await expect(call(globTool, { pattern: "*", path: "src/app.ts" }, ctx)).rejects.toThrow(
			'Path "src/app.ts" is a file; glob searches a folder.',
		);
		await expect(call(globTool, { pattern: "*", path: "missing" }, ctx)).rejects.toThrow(
			'Path "missing" does not exist in the workspace.',
		);
	});

	it("lists at most 1,000 files and says how many more matched", async () => {
		for (let i = 0; i < 1_005; i++) box.write(`many/f${String(i).padStart(4, "0")}.txt`, "");
		const { ctx } = box.context();
		const out = (await call(globTool, { pattern: "many/*.txt" }, ctx)).split("\n");
		expect(out).toHaveLength(1_001);
		expect(out[999]).toBe("many/f0999.txt");
		expect(out[1_000]).toBe(
			"[showing the first 1,000 of 1,005 matching files; narrow the pattern or the path to see the rest]",
		);
	});

	it("is read-only", () => {
		expect(globTool.readOnly).toBe(true);
	});
});

describe("grep", () => {
	it("prints file:line: text for matches in text files, honouring .gitignore, skipping .git and binary files", async () => {
		repository();
		const { ctx } = box.context();
		expect(await call(grepTool, { pattern: "needle" }, ctx)).toBe(
			[
				".github/workflow.yml:1: needle: true",
				"pkg/keep.log:1: needle",
				"pkg/lib/index.ts:1: import { needle } from '../../src/app';",
				"src/app.ts:1: export const needle = 1;",
			].join("\n"),
		);
	});

	it("matches regardless of case with ignore_case, and filters files with glob", async () => {
		repository();
		const { ctx } = box.context();
		expect(await call(grepTool, { pattern: "ne+dle", ignore_case: true, glob: "*.ts" }, ctx)).toBe(
			[
				"pkg/lib/index.ts:1: import { needle } from '../../src/app';",
				"src/app.ts:1: export const needle = 1;",
				"src/util/strings.ts:2: const Needle = 'NEEDLE';",
			].join("\n"),
		);
		expect(await call(grepTool, { pattern: "needle", glob: "lib/**", path: "pkg" }, ctx)).toBe(
			"pkg/lib/index.ts:1: import { needle } from '../../src/app';",
		);
	});

	it("searches one file when path names a file, even an ignored one", async () => {
		repository();
		const { ctx } = box.context();
		expect(await call(grepTool, { pattern: "need", path: "src/debug.log" }, ctx)).toBe("src/debug.log:1: needle");
	});

	it("says when nothing matches, and refuses an invalid regular expression clearly", async () => {
		repository();
		const { ctx } = box.context();
		expect(await call(grepTool, { pattern: "haystack", glob: "*.ts" }, ctx)).toBe(
			'No lines match /haystack/ in "." (files matching "*.ts").',
		);
		await expect(call(grepTool, { pattern: "foo(" }, ctx)).rejects.toThrow(
			/^Invalid regular expression in pattern "foo\(": .*Unterminated group/,
		);
	});

	it("stops at 500 matching lines with a note, and saves a cut output whole under the Session's folder", async () => {
		box.write("wide.txt", Array.from({ length: 600 }, (_, i) => `${i} ${"z".repeat(300)}`).join("\n"));
		const { ctx } = box.context("grep_call");
		const out = await call(grepTool, { pattern: "z{10}" }, ctx);
		const saved = path.join(box.sessionDir, "tool-outputs", "grep_call.txt");
		expect(out).toMatch(
			/\n\[output cut: showing the first 49,864 of 159,371 characters \(157 of 501 lines\); the full output is in .*grep_call\.txt \(read_file reads it, with offset and limit\)\]$/,
		);
		const full = readFileSync(saved, "utf8").split("\n");
		expect(full).toHaveLength(501);
		expect(full[499]).toMatch(/^wide\.txt:500: 499 z+$/);
		expect(full[500]).toBe("[stopped at 500 matching lines; narrow the pattern, the path or the glob to see the rest]");
	});

	it("does not follow a link to a folder, so nothing is found twice or outside", async () => {
		box.write("src/a.ts", "needle");
		symlinkSync("src", path.join(box.workspace, "alias"));
		const { ctx } = box.context();
		expect(await call(grepTool, { pattern: "needle" }, ctx)).toBe("src/a.ts:1: needle");
	});

	it("is read-only", () => {
		expect(grepTool.readOnly).toBe(true);
	});
});

import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editFileTool } from "../../src/tools/builtins/edit-file.js";
import { listDirTool } from "../../src/tools/builtins/list-dir.js";
import { readFileTool } from "../../src/tools/builtins/read-file.js";
import { writeFileTool } from "../../src/tools/builtins/write-file.js";
import { call, makeSandbox, type Sandbox } from "./sandbox.js";

let box: Sandbox;
beforeEach(() => {
	box = makeSandbox();
});
afterEach(() => box.cleanup());

const lines = (count: number, prefix = "line") => Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}`);

describe("read_file", () => {
	it("numbers lines like cat -n", async () => {
		box.write("a.txt", "first\n\tindented\nlast\n");
		const { ctx } = box.context();
		expect(await call(readFileTool, { path: "a.txt" }, ctx)).toBe("     1\tfirst\n     2\t\tindented\n     3\tlast");
	});

	it("reads a range with offset and limit, and says how to read on", async () => {
		box.write("a.txt", lines(10).join("\n"));
		const { ctx } = box.context();
		expect(await call(readFileTool, { path: "a.txt", offset: 4, limit: 2 }, ctx)).toBe(
			'     4\tline 4\n     5\tline 5\n[showing lines 4–5 of 10; call read_file with path "a.txt" and offset 6 to read on]',
		);
		expect(await call(readFileTool, { path: "a.txt", offset: 9 }, ctx)).toBe(
			"     9\tline 9\n    10\tline 10\n[showing lines 9–10 of 10]",
		);
	});

	it("refuses an offset past the end, and zero or negative numbers", async () => {
		box.write("a.txt", "one\ntwo\n");
		const { ctx } = box.context();
		await expect(call(readFileTool, { path: "a.txt", offset: 3 }, ctx)).rejects.toThrow(
			'offset 3 is past the end of "a.txt", which has 2 lines.',
		);
		expect(readFileTool.checkArguments({ path: "a.txt", offset: 0 }).ok).toBe(false);
		expect(readFileTool.checkArguments({ path: "a.txt", limit: -1 }).ok).toBe(false);
	});

	it("shows at most 2,000 lines by default, even when asked for more", async () => {
		box.write("big.txt", lines(2_500).join("\n"));
		const { ctx } = box.context();
		for (const args of [{ path: "big.txt" }, { path: "big.txt", limit: 5_000 }]) {
			const out = (await call(readFileTool, args, ctx)).split("\n");
			expect(out).toHaveLength(2_001);
			expect(out[1_999]).toBe("  2000\tline 2000");
			expect(out[2_000]).toBe(
				'[showing lines 1–2,000 of 2,500; call read_file with path "big.txt" and offset 2001 to read on]',
			);
		}
	});

	it("stops at the character cap, and cuts a very long line", async () => {
		box.write("wide.txt", Array.from({ length: 100 }, () => "w".repeat(1_000)).join("\n"));
		box.write("minified.js", "m".repeat(5_000));
		const { ctx } = box.context();
		const wide = await call(readFileTool, { path: "wide.txt" }, ctx);
		expect(wide.length).toBeLessThan(51_000);
		expect(wide).toMatch(
			/\[showing lines 1–49 of 100 \(the 50,000-character cap was reached\); .* offset 50 to read on\]$/,
		);
		const minified = await call(readFileTool, { path: "minified.js" }, ctx);
		expect(minified).toBe(`     1\t${"m".repeat(2_000)}… [line cut: 5,000 characters]`);
	});

	it("reads CRLF files line by line, and says when a file is empty", async () => {
		box.write("dos.txt", "a\r\nb\r\n");
		box.write("empty.txt", "");
		const { ctx } = box.context();
		expect(await call(readFileTool, { path: "dos.txt" }, ctx)).toBe("     1\ta\n     2\tb");
		expect(await call(readFileTool, { path: "empty.txt" }, ctx)).toBe('[File "empty.txt" is empty.]');
	});

	it("refuses binary files, folders and missing files clearly", async () => {
		box.write("image.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
		mkdirSync(path.join(box.workspace, "src"));
		const { ctx } = box.context();
		await expect(call(readFileTool, { path: "image.png" }, ctx)).rejects.toThrow(
			'File "image.png" looks binary (it contains NUL bytes); only text files can be read or edited.',
		);
		await expect(call(readFileTool, { path: "src" }, ctx)).rejects.toThrow(
			'Path "src" is a directory, not a file; use list_dir to see what it holds.',
		);
		await expect(call(readFileTool, { path: "nope.txt" }, ctx)).rejects.toThrow(
			'Path "nope.txt" does not exist in the workspace.',
		);
	});

	it("is read-only", () => {
		expect(readFileTool.readOnly).toBe(true);
	});
});

describe("write_file", () => {
	it("creates a file and its missing parent folders, then overwrites it", async () => {
		const { ctx } = box.context();
		expect(await call(writeFileTool, { path: "a/b/c.txt", content: "one\ntwo\n" }, ctx)).toBe(
			'Created "a/b/c.txt" (2 lines, 8 bytes).',
		);
		expect(readFileSync(path.join(box.workspace, "a/b/c.txt"), "utf8")).toBe("one\ntwo\n");
		expect(await call(writeFileTool, { path: "a/b/c.txt", content: "é" }, ctx)).toBe(
			'Overwrote "a/b/c.txt" (1 line, 2 bytes).',
		);
		expect(readFileSync(path.join(box.workspace, "a/b/c.txt"), "utf8")).toBe("é");
	});

	it("writes through a link that stays inside the workspace", async () => {
		mkdirSync(path.join(box.workspace, "real"));
		symlinkSync("real", path.join(box.workspace, "alias"));
		const { ctx } = box.context();
		await call(writeFileTool, { path: "alias/x.txt", content: "x" }, ctx);
		expect(readFileSync(path.join(box.workspace, "real/x.txt"), "utf8")).toBe("x");
	});

	it("refuses to write over a folder or below a file", async () => {
		mkdirSync(path.join(box.workspace, "dir"));
		box.write("file.txt", "f");
		const { ctx } = box.context();
		await expect(call(writeFileTool, { path: "dir", content: "" }, ctx)).rejects.toThrow(
			'Path "dir" is a directory; write_file writes files.',
		);
		await expect(call(writeFileTool, { path: "file.txt/under.txt", content: "" }, ctx)).rejects.toThrow(
			'Cannot create the folders for "file.txt/under.txt": part of that path is a file, not a folder.',
		);
	});

	it("is not read-only", () => {
		expect(writeFileTool.readOnly).toBe(false);
	});
});

describe("edit_file", () => {
	const source = "const a = 1;\nconst b = 2;\nconst a2 = 1;\n";

	it("replaces one exact, unique occurrence", async () => {
		const file = box.write("a.ts", source);
		const { ctx } = box.context();
		expect(await call(editFileTool, { path: "a.ts", old_string: "b = 2", new_string: "b = 3" }, ctx)).toBe(
			'Edited "a.ts": replaced 1 occurrence (line 2).',
		);
		expect(readFileSync(file, "utf8")).toBe("const a = 1;\nconst b = 3;\nconst a2 = 1;\n");
	});

	it("says when old_string is not there, and leaves the file alone", async () => {
		const file = box.write("a.ts", source);
		const { ctx } = box.context();
		await expect(call(editFileTool, { path: "a.ts", old_string: "const c", new_string: "x" }, ctx)).rejects.toThrow(
			'old_string was not found in "a.ts". It must match the file exactly, whitespace and indentation included',
		);
		expect(readFileSync(file, "utf8")).toBe(source);
	});

	it("says how many times old_string occurs when it is not unique, and leaves the file alone", async () => {
		const file = box.write("a.ts", source);
		const { ctx } = box.context();
		await expect(call(editFileTool, { path: "a.ts", old_string: " = 1;", new_string: " = 9;" }, ctx)).rejects.toThrow(
			'old_string occurs 2 times in "a.ts" (lines 1, 3); it must be unique: add surrounding lines to old_string, or set replace_all to true',
		);
		expect(readFileSync(file, "utf8")).toBe(source);
	});

	it("replaces every occurrence with replace_all, taking new_string literally", async () => {
		const file = box.write("a.ts", source);
		const { ctx } = box.context();
		expect(
			await call(editFileTool, { path: "a.ts", old_string: " = 1;", new_string: " = $&$1;", replace_all: true }, ctx),
		).toBe('Edited "a.ts": replaced 2 occurrences (lines 1, 3).');
		expect(readFileSync(file, "utf8")).toBe("const a = $&$1;\nconst b = 2;\nconst a2 = $&$1;\n");
	});

	it("refuses an empty old_string, an edit that changes nothing, binary and missing files", async () => {
		box.write("a.ts", source);
		box.write("blob.bin", new Uint8Array([1, 0, 2]));
		const { ctx } = box.context();
		expect(editFileTool.checkArguments({ path: "a.ts", old_string: "", new_string: "x" }).ok).toBe(false);
		await expect(call(editFileTool, { path: "a.ts", old_string: "b", new_string: "b" }, ctx)).rejects.toThrow(
			"old_string and new_string are the same",
		);
		await expect(call(editFileTool, { path: "blob.bin", old_string: "a", new_string: "b" }, ctx)).rejects.toThrow(
			"looks binary",
		);
		await expect(call(editFileTool, { path: "gone.ts", old_string: "a", new_string: "b" }, ctx)).rejects.toThrow(
			'Path "gone.ts" does not exist in the workspace.',
		);
	});

	it("is not read-only", () => {
		expect(editFileTool.readOnly).toBe(false);
	});
});

describe("list_dir", () => {
	it("lists the workspace by default, sorted, folders with a trailing / and links with their target", async () => {
		box.write("b.txt", "");
		box.write("A.md", "");
		box.write("src/index.ts", "");
		box.write(".hidden", "");
		symlinkSync("src/index.ts", path.join(box.workspace, "link"));
		const { ctx } = box.context();
		expect(await call(listDirTool, {}, ctx)).toBe(
			[".hidden", "A.md", "b.txt", "link -> src/index.ts", "src/"].join("\n"),
		);
		expect(await call(listDirTool, { path: "src" }, ctx)).toBe("index.ts");
	});

	it("says when a folder is empty, and refuses a file or a missing path", async () => {
		mkdirSync(path.join(box.workspace, "empty"));
		box.write("f.txt", "");
		const { ctx } = box.context();
		expect(await call(listDirTool, { path: "empty" }, ctx)).toBe('[Folder "empty" is empty.]');
		await expect(call(listDirTool, { path: "f.txt" }, ctx)).rejects.toThrow(
			'Path "f.txt" is a file, not a folder; use read_file to read it.',
		);
		await expect(call(listDirTool, { path: "none" }, ctx)).rejects.toThrow(
			'Path "none" does not exist in the workspace.',
		);
	});

	it("is read-only", () => {
		expect(listDirTool.readOnly).toBe(true);
	});
});

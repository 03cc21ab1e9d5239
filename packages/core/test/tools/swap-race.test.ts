import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { walkFiles } from "../../src/tools/builtins/walk-files.js";
import { openChecked, readFolderChecked, resolveInWorkspace } from "../../src/tools/builtins/workspace.js";
import { makeSandbox, type Sandbox } from "./sandbox.js";

/**
 * A folder on the way swapped for a link out of the workspace between the guard's check by name
 * and the open (a command running beside a file tool can do that): what was opened is checked, so
 * nothing outside is read, and nothing is left written there.
 */
let box: Sandbox;
afterEach(() => box.cleanup());

function swapForLinkOut(folder: string): void {
	renameSync(path.join(box.workspace, folder), path.join(box.workspace, `${folder}-was`));
	symlinkSync(box.outside, path.join(box.workspace, folder));
}

describe("a file tool's open after its path was checked", () => {
	it("refuses to read what a swapped folder leads to outside", async () => {
		box = makeSandbox();
		mkdirSync(path.join(box.workspace, "d"));
		writeFileSync(path.join(box.workspace, "d", "secret.txt"), "inside");
		writeFileSync(path.join(box.outside, "secret.txt"), "OUTSIDE SECRET");
		const target = await resolveInWorkspace("d/secret.txt", box.workspace);
		swapForLinkOut("d");
		await expect(openChecked(target, "read")).rejects.toThrow(/was not used: a folder on its way was swapped/);
	});

	it("refuses to write there, and removes the file the open made outside", async () => {
		box = makeSandbox();
		mkdirSync(path.join(box.workspace, "d"));
		const target = await resolveInWorkspace("d/new.txt", box.workspace);
		swapForLinkOut("d");
		await expect(openChecked(target, "create")).rejects.toThrow(/was not used/);
		expect(existsSync(path.join(box.outside, "new.txt"))).toBe(false);
	});

	it("refuses a FIFO put in the file's place without waiting on it (a blocking open would hang the tool)", async () => {
		box = makeSandbox();
		writeFileSync(path.join(box.workspace, "f.txt"), "text");
		const target = await resolveInWorkspace("f.txt", box.workspace);
		rmSync(path.join(box.workspace, "f.txt"));
		execFileSync("mkfifo", [path.join(box.workspace, "f.txt")]);
		await expect(openChecked(target, "read")).rejects.toThrow(/not a regular file/);
		await expect(openChecked(target, "update")).rejects.toThrow(/not a regular file/);
		await expect(openChecked(target, "create")).rejects.toThrow(/not a regular file/);
	});

	it("opens the file the path named when nothing changed", async () => {
		box = makeSandbox();
		mkdirSync(path.join(box.workspace, "d"));
		writeFileSync(path.join(box.workspace, "d", "a.txt"), "hello");
		const target = await resolveInWorkspace("d/a.txt", box.workspace);
		const handle = await openChecked(target, "read");
		try {
			expect((await handle.readFile()).toString()).toBe("hello");
		} finally {
			await handle.close();
		}
		expect(readFileSync(path.join(box.workspace, "d", "a.txt"), "utf8")).toBe("hello");
	});
});

describe("a walk or a listing after the folder was checked (grep, glob, list_dir)", () => {
	function withOutsideSecret(): void {
		box = makeSandbox();
		mkdirSync(path.join(box.workspace, "d", "sub"), { recursive: true });
		writeFileSync(path.join(box.workspace, "d", "sub", "inside.txt"), "inside");
		mkdirSync(path.join(box.outside, "sub"));
		writeFileSync(path.join(box.outside, "secret.json"), '{"token":"OUTSIDE"}');
		writeFileSync(path.join(box.outside, "sub", "secret.txt"), "OUTSIDE");
	}

	it("reads nothing of where the folder, swapped for a link out, now leads", async () => {
		withOutsideSecret();
		const start = await resolveInWorkspace("d", box.workspace);
		swapForLinkOut("d");
		await expect(readFolderChecked(start.real)).rejects.toThrow(/was not read: it is no longer a folder/);
		const walked = await walkFiles(start, new AbortController().signal);
		expect(walked.files).toEqual([]);
	});

	it("reads nothing of where a folder on its way, swapped for a link out, now leads", async () => {
		withOutsideSecret();
		const sub = await resolveInWorkspace("d/sub", box.workspace);
		swapForLinkOut("d");
		await expect(readFolderChecked(sub.real)).rejects.toThrow(/a folder on its way was swapped: it led to /);
		const walked = await walkFiles(sub, new AbortController().signal);
		expect(walked.files).toEqual([]);
	});

	it("reads the folder the path named when nothing changed", async () => {
		withOutsideSecret();
		const start = await resolveInWorkspace("d", box.workspace);
		expect((await readFolderChecked(start.real)).map((entry) => entry.name)).toEqual(["sub"]);
		const walked = await walkFiles(start, new AbortController().signal);
		expect(walked.files.map((file) => file.relative)).toEqual(["d/sub/inside.txt"]);
	});
});

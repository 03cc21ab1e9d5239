import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isInside, resolveInWorkspace, WorkspaceError } from "../../src/tools/builtins/workspace.js";
import { makeSandbox, type Sandbox } from "./sandbox.js";

let box: Sandbox;
beforeEach(() => {
	box = makeSandbox();
});
afterEach(() => box.cleanup());

describe("resolveInWorkspace: the one path guard", () => {
	it("accepts relative and absolute paths inside the workspace, existing or not", async () => {
		box.write("src/a.ts", "a");
		const relative = await resolveInWorkspace("src/a.ts", box.workspace);
		expect(relative).toMatchObject({ real: path.join(box.workspace, "src/a.ts"), relative: "src/a.ts" });
		const absolute = await resolveInWorkspace(path.join(box.workspace, "src/a.ts"), box.workspace);
		expect(absolute.real).toBe(relative.real);
		const future = await resolveInWorkspace("new/deep/file.txt", box.workspace);
		expect(future).toMatchObject({
			real: path.join(box.workspace, "new/deep/file.txt"),
			relative: "new/deep/file.txt",
		});
		expect((await resolveInWorkspace(".", box.workspace)).relative).toBe(".");
		expect((await resolveInWorkspace("src/../src/./a.ts", box.workspace)).relative).toBe("src/a.ts");
	});

	it("refuses ../, absolute paths elsewhere and a sibling folder whose name starts like the workspace's", async () => {
		mkdirSync(`${box.workspace}-evil`);
		for (const requested of ["../outside", "..", "src/../../outside/x", "/etc/passwd", `${box.workspace}-evil/x`]) {
			const refused = resolveInWorkspace(requested, box.workspace);
			await expect(refused).rejects.toBeInstanceOf(WorkspaceError);
			await expect(refused).rejects.toThrow(`Path "${requested}" is outside the workspace`);
		}
	});

	it("follows symbolic links and refuses those that lead out, even when the target does not exist yet", async () => {
		symlinkSync("/etc", path.join(box.workspace, "etc-link"));
		symlinkSync(path.join(box.outside, "later.txt"), path.join(box.workspace, "dangling"));
		symlinkSync("../outside", path.join(box.workspace, "relative-out"));
		for (const requested of ["etc-link", "etc-link/passwd", "etc-link/new-file", "dangling", "relative-out/x"]) {
			await expect(resolveInWorkspace(requested, box.workspace)).rejects.toThrow(
				new RegExp(`^Path "${requested}" is outside the workspace .* \\(it resolves to `),
			);
		}
	});

	it("accepts a link that stays inside, and resolves it to its target", async () => {
		box.write("real/file.txt", "x");
		symlinkSync("real", path.join(box.workspace, "alias"));
		expect((await resolveInWorkspace("alias/file.txt", box.workspace)).relative).toBe("real/file.txt");
	});

	it("never resolves the workspace again: given a path that is now a link, every path is refused", async () => {
		// The Session keeps the real path it was confined to; a link in its place leads elsewhere.
		const linked = path.join(box.root, "ws-link");
		symlinkSync(box.outside, linked);
		await expect(resolveInWorkspace("a.txt", linked)).rejects.toThrow(
			`The workspace ${linked} now resolves to ${box.outside}`,
		);
	});

	it("refuses a denied path inside the workspace, and a link to it", async () => {
		const home = path.join(box.workspace, ".omniloop");
		mkdirSync(home);
		symlinkSync(home, path.join(box.workspace, "home-link"));
		for (const requested of [".omniloop", ".omniloop/server.json", "home-link/x"]) {
			await expect(resolveInWorkspace(requested, box.workspace, [home])).rejects.toThrow(
				`Path "${requested}" is inside ${home}, omniloop's own data`,
			);
		}
		expect((await resolveInWorkspace(".omniloop-not", box.workspace, [home])).relative).toBe(".omniloop-not");
	});

	it("isInside compares whole path components", () => {
		expect(isInside("/a/b", "/a/b")).toBe(true);
		expect(isInside("/a/b/c", "/a/b")).toBe(true);
		expect(isInside("/a/bc", "/a/b")).toBe(false);
		expect(isInside("/a", "/a/b")).toBe(false);
		expect(isInside("/a/b/..c", "/a/b")).toBe(true);
	});
});

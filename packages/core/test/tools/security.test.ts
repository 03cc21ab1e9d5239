import { existsSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editFileTool } from "../../src/tools/builtins/edit-file.js";
import { globTool } from "../../src/tools/builtins/glob.js";
import { grepTool } from "../../src/tools/builtins/grep.js";
import { listDirTool } from "../../src/tools/builtins/list-dir.js";
import { readFileTool } from "../../src/tools/builtins/read-file.js";
import { WorkspaceError } from "../../src/tools/builtins/workspace.js";
import { writeFileTool } from "../../src/tools/builtins/write-file.js";
import type { Tool, ToolContext } from "../../src/tools/tool.js";
import { call, makeSandbox, type Sandbox } from "./sandbox.js";

let box: Sandbox;
const SECRET = "top secret: outside the workspace";

/**
 * The workspace holds links that lead out: to /etc, to a file beside the workspace, to a file that
 * does not exist yet beside it, and a relative one to the folder beside it.
 */
beforeEach(() => {
	box = makeSandbox();
	box.write("inside.txt", "inside");
	box.write(path.join("..", "outside", "secret.txt"), SECRET);
	symlinkSync("/etc", path.join(box.workspace, "etc-link"));
	symlinkSync(path.join(box.outside, "secret.txt"), path.join(box.workspace, "secret-link"));
	symlinkSync(path.join(box.outside, "planted.txt"), path.join(box.workspace, "dangling"));
	symlinkSync("../outside", path.join(box.workspace, "outside-link"));
});
afterEach(() => box.cleanup());

/** Every way out we know of, as the model would spell it. */
const ESCAPES = [
	"../outside",
	"../outside/secret.txt",
	"sub/../../outside/secret.txt",
	"/etc",
	"/etc/passwd",
	"etc-link",
	"etc-link/passwd",
	"etc-link/omniloop-planted",
	"secret-link",
	"dangling",
	"outside-link/secret.txt",
	"outside-link/planted.txt",
];

/** Each file tool with the arguments that point it at `target`. */
const FILE_TOOLS: Array<[Tool, (target: string) => Record<string, unknown>]> = [
	[readFileTool, (target) => ({ path: target })],
	[writeFileTool, (target) => ({ path: target, content: "planted" })],
	[editFileTool, (target) => ({ path: target, old_string: "secret", new_string: "changed" })],
	[listDirTool, (target) => ({ path: target })],
	[globTool, (target) => ({ pattern: "**", path: target })],
	[grepTool, (target) => ({ pattern: ".", path: target })],
];

async function expectRefused(t: Tool, args: Record<string, unknown>, ctx: ToolContext, target: string) {
	const attempt = call(t, args, ctx);
	await expect(attempt, `${t.name} ${target}`).rejects.toBeInstanceOf(WorkspaceError);
	await expect(attempt, `${t.name} ${target}`).rejects.toThrow(`Path "${target}" is outside the workspace`);
}

describe("no file tool reaches outside the workspace", () => {
	for (const [t, argsFor] of FILE_TOOLS) {
		it(`${t.name} refuses ../, absolute paths elsewhere and links that lead out`, async () => {
			const { ctx } = box.context();
			for (const target of ESCAPES) await expectRefused(t, argsFor(target), ctx, target);
			// Nothing outside was written or changed.
			expect(readdirSync(box.outside)).toEqual(["secret.txt"]);
			expect(readFileSync(path.join(box.outside, "secret.txt"), "utf8")).toBe(SECRET);
			expect(existsSync("/etc/omniloop-planted")).toBe(false);
		});
	}

	it("the same tools still work inside the workspace", async () => {
		const { ctx } = box.context();
		expect(await call(readFileTool, { path: "inside.txt" }, ctx)).toBe("     1\tinside");
		expect(await call(readFileTool, { path: path.join(box.workspace, "inside.txt") }, ctx)).toBe("     1\tinside");
	});

	it("glob and grep over the whole workspace skip links that lead out", async () => {
		const { ctx } = box.context();
		expect(await call(globTool, { pattern: "**" }, ctx)).toBe("inside.txt");
		expect(await call(grepTool, { pattern: "secret|root" }, ctx)).toBe('No lines match /secret|root/ in ".".');
	});

	it("list_dir shows where links lead instead of following them", async () => {
		const { ctx } = box.context();
		expect(await call(listDirTool, {}, ctx)).toBe(
			[
				`dangling -> ${path.join(box.outside, "planted.txt")}`,
				"etc-link -> /etc",
				"inside.txt",
				"outside-link -> ../outside",
				`secret-link -> ${path.join(box.outside, "secret.txt")}`,
			].join("\n"),
		);
	});
});

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, tempDir } from "../harness.js";
import { filesHarness, prompt, toolTurn } from "./checkpoint-helpers.js";

afterEach(cleanup);

describe("a workspace inside a git repository (not its top)", () => {
	it("honours the repository's ignore rules above the workspace: an undo leaves ignored build output", async () => {
		const repo = tempDir("omniloop-enclosing-");
		execFileSync("git", ["init", "-q"], { cwd: repo });
		writeFileSync(join(repo, ".gitignore"), "build/\n/pkg/dist\nother/\n");
		const workspace = join(repo, "pkg");
		mkdirSync(workspace);
		const { session } = await filesHarness(
			toolTurn("shell", {
				command: "echo a > a.txt && mkdir -p build dist && echo b > build/out.txt && echo d > dist/d.txt",
			}),
			{ workspace },
		);
		await prompt(session, "build");
		const undone = await session.undo();
		expect(undone.restored).toEqual(["a.txt"]);
		expect(existsSync(join(workspace, "a.txt"))).toBe(false);
		expect(readFileSync(join(workspace, "build/out.txt"), "utf8")).toBe("b\n");
		expect(readFileSync(join(workspace, "dist/d.txt"), "utf8")).toBe("d\n");
	});
});

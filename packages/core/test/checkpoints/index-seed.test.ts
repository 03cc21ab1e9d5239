import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { seedIndex } from "../../src/checkpoints/index-seed.js";
import { ShadowStore } from "../../src/checkpoints/shadow-store.js";
import { cleanup, tempDir } from "../harness.js";

afterEach(cleanup);

const MAX = 4 * 1024 * 1024;

/** The paths and contents of a tree in the shadow store. */
function files(home: string, tree: string): Record<string, string> {
	const git = (...args: string[]) =>
		execFileSync("git", [`--git-dir=${join(home, "checkpoints.git")}`, ...args], { encoding: "utf8" });
	const out: Record<string, string> = {};
	for (const path of git("ls-tree", "-r", "--name-only", "-z", tree)
		.split("\0")
		.filter((p) => p !== "")) {
		out[path] = git("show", `${tree}:${path}`);
	}
	return out;
}

describe("a new Session's index starts from another's of the same workspace", () => {
	it("copies the newest index kept of the same workspace, none of another's", () => {
		const dir = tempDir("omniloop-indexes-");
		const index = (name: string, workspace: string, bytes: string) => {
			writeFileSync(join(dir, name), bytes);
			writeFileSync(join(dir, `${name}.workspace`), workspace);
		};
		index("older", "/w", "OLDER");
		index("other", "/elsewhere", "OTHER");
		writeFileSync(join(dir, "gone.workspace"), "/w");
		index("newer", "/w", "NEWER");
		seedIndex({ gitDir: dir, workTree: "/w", indexFile: join(dir, "fresh") });
		expect(readFileSync(join(dir, "fresh"), "utf8")).toBe("NEWER");
		expect(readFileSync(join(dir, "fresh.workspace"), "utf8")).toBe("/w");
		seedIndex({ gitDir: dir, workTree: "/nowhere", indexFile: join(dir, "alone") });
		expect(() => readFileSync(join(dir, "alone"))).toThrow(/ENOENT/);
	});

	it("a second Session's first snapshot, from the first's index, still sees every change made since", async () => {
		const home = tempDir("omniloop-home-");
		const workspace = tempDir("omniloop-ws-");
		mkdirSync(join(workspace, "d"));
		for (const name of ["same.txt", "gone.txt", "d/changed.txt"]) writeFileSync(join(workspace, name), "before\n");
		const first = await ShadowStore.at(home, "first", workspace, MAX).snapshot();
		expect(Object.keys(files(home, first.tree)).sort()).toEqual(["d/changed.txt", "gone.txt", "same.txt"]);
		rmSync(join(workspace, "gone.txt"));
		writeFileSync(join(workspace, "d", "changed.txt"), "after!\n");
		writeFileSync(join(workspace, "new.txt"), "new\n");
		const second = await ShadowStore.at(home, "second", workspace, MAX).snapshot();
		expect(files(home, second.tree)).toEqual({
			"d/changed.txt": "after!\n",
			"new.txt": "new\n",
			"same.txt": "before\n",
		});
		// Its index records its workspace beside it, for the next Session on the same folder.
		expect(readFileSync(join(home, "checkpoints.git", "indexes", "second.workspace"), "utf8")).toBe(workspace);
	});
});

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callTool, type ScriptedTurn, say } from "../../src/model/scripted.js";
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

/** A turn that writes each of `paths` with write_file (no shell: no sandbox needed), then one that says so. */
function writesTurn(paths: readonly string[]): ScriptedTurn[] {
	return [paths.map((path, i) => callTool("write_file", { path, content: `${path}\n` }, `w${i}`)), [say("written")]];
}

/** Runs `work` with the process's HOME and XDG_CONFIG_HOME set to `env`, as the person's git would see them. */
async function withUserEnv(env: { HOME: string; XDG_CONFIG_HOME?: string }, work: () => Promise<void>): Promise<void> {
	const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
	process.env.HOME = env.HOME;
	if (env.XDG_CONFIG_HOME === undefined) delete process.env.XDG_CONFIG_HOME;
	else process.env.XDG_CONFIG_HOME = env.XDG_CONFIG_HOME;
	try {
		await work();
	} finally {
		for (const [key, value] of Object.entries(saved)) {
			if (value === undefined) delete process.env[key];
			else process.env[key] = value;
		}
	}
}

describe("ignore rules git keeps outside the workspace's files", () => {
	it("the repository's .git/info/exclude (the workspace its top) and the user's global excludes file count like .gitignore: an undo leaves those files", async () => {
		const workspace = tempDir("omniloop-top-");
		execFileSync("git", ["init", "-q"], { cwd: workspace });
		writeFileSync(join(workspace, ".git", "info", "exclude"), "local-only/\n*.cache\n");
		const user = tempDir("omniloop-user-");
		mkdirSync(join(user, "config", "git"), { recursive: true });
		writeFileSync(join(user, "config", "git", "ignore"), "*.mine\n");
		await withUserEnv({ HOME: user, XDG_CONFIG_HOME: join(user, "config") }, async () => {
			const { session } = await filesHarness(writesTurn(["a.txt", "local-only/x.txt", "b.cache", "notes.mine"]), {
				workspace,
			});
			await prompt(session, "write");
			const undone = await session.undo();
			expect(undone.restored).toEqual(["a.txt"]);
			expect(existsSync(join(workspace, "a.txt"))).toBe(false);
			for (const kept of ["local-only/x.txt", "b.cache", "notes.mine"]) {
				expect(readFileSync(join(workspace, kept), "utf8")).toBe(`${kept}\n`);
			}
			await session.close();
		});
	});

	it("core.excludesFile named in the user's ~/.gitconfig (with ~) counts, in a subfolder of a worktree too (.git a file)", async () => {
		const main = tempDir("omniloop-main-");
		execFileSync("git", ["init", "-q"], { cwd: main });
		execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"], {
			cwd: main,
		});
		const tree = join(tempDir("omniloop-wt-"), "tree");
		execFileSync("git", ["worktree", "add", "-q", tree], { cwd: main });
		writeFileSync(join(main, ".git", "info", "exclude"), "/pkg/generated/\n");
		const workspace = join(tree, "pkg");
		mkdirSync(workspace);
		const user = tempDir("omniloop-user-");
		writeFileSync(join(user, ".gitconfig"), "[core]\n\texcludesFile = ~/my-ignores\n");
		writeFileSync(join(user, "my-ignores"), "*.log\n");
		await withUserEnv({ HOME: user }, async () => {
			const { session } = await filesHarness(writesTurn(["a.txt", "run.log", "generated/g.txt"]), { workspace });
			await prompt(session, "write");
			const undone = await session.undo();
			expect(undone.restored).toEqual(["a.txt"]);
			expect(readFileSync(join(workspace, "run.log"), "utf8")).toBe("run.log\n");
			expect(readFileSync(join(workspace, "generated/g.txt"), "utf8")).toBe("generated/g.txt\n");
			await session.close();
		});
	});
});

import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")) as { version: string })
	.version;
const scratch = mkdtempSync(join(tmpdir(), "omniloop-install-"));

afterAll(() => {
	rmSync(scratch, { recursive: true, force: true });
});

/** Runs a command with stdin at its end (nobody there to answer) and resolves with its output. */
function runClosed(
	command: string,
	args: readonly string[],
	options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString("utf8");
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		child.on("error", reject);
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

/** An environment with no provider key and a private home, so the installed command runs the offline demo. */
function cleanEnv(home: string): NodeJS.ProcessEnv {
	return { PATH: process.env.PATH, HOME: home, OMNILOOP_HOME: home };
}

describe("installing the omniloop command", () => {
	it("after npm ci and a build, the repository's own bin is linked and executable: npx omniloop --version works", async () => {
		const stub = join(ROOT, "packages/cli/bin/omniloop.js");
		expect(statSync(stub).mode & 0o111).not.toBe(0);
		expect(realpathSync(join(ROOT, "node_modules/.bin/omniloop"))).toBe(realpathSync(stub));
		const { stdout } = await run(join(ROOT, "node_modules/.bin/omniloop"), ["--version"], { env: cleanEnv(scratch) });
		expect(stdout.trim()).toBe(VERSION);
	});

	it("the packed packages install globally into a prefix; the installed omniloop prints its version and runs the offline demo", async () => {
		const packs = join(scratch, "packs");
		const prefix = join(scratch, "prefix");
		mkdirSync(packs);
		const workspaces = ["packages/core", "packages/server", "packages/cli"].flatMap((w) => ["-w", w]);
		await run("npm", ["pack", "--silent", "--pack-destination", packs, ...workspaces], { cwd: ROOT });
		await run(
			"npm",
			[
				"install",
				"--global",
				"--prefix",
				prefix,
				"--prefer-offline",
				"--no-audit",
				"--no-fund",
				"--silent",
				// What is checked is what the packages ship. Install scripts would compile
				// better-sqlite3 (the server store's native binding) from source, minutes where its
				// prebuilt binary cannot be downloaded; only `omniloop serve` loads it, and not here.
				"--ignore-scripts",
				join(packs, `omniloop-core-${VERSION}.tgz`),
				join(packs, `omniloop-server-${VERSION}.tgz`),
				join(packs, `omniloop-${VERSION}.tgz`),
			],
			{ cwd: scratch },
		);
		const omniloop = join(prefix, "bin", "omniloop");
		const version = await run(omniloop, ["--version"], { env: cleanEnv(scratch) });
		expect(version.stdout.trim()).toBe(VERSION);

		const workspace = join(scratch, "project");
		mkdirSync(workspace);
		writeFileSync(join(workspace, "README.md"), "# A project\n");
		// stdin is closed: the demo's shell call cannot be approved and is denied; the Task still completes.
		const demo = await runClosed(omniloop, ["run", "what is here?"], { cwd: workspace, env: cleanEnv(scratch) });
		expect(demo.code, demo.stderr).toBe(0);
		expect(demo.stderr).toContain("Starting the offline demo");
		expect(demo.stdout).toContain("→ read_file README.md");
		expect(demo.stdout).toContain('README.md begins with "# A project"');
		expect(demo.stdout).toContain("── done");
	}, 180_000);
});

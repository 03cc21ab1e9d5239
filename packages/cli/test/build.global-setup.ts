import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const tsc = join(root, "node_modules", ".bin", "tsc");
const rolldown = join(root, "node_modules", ".bin", "rolldown");

/**
 * The CLI tests run the bundle the installed command runs (`node packages/cli/bundle/main.js`) as a
 * child process, and the server's multi-process tests `dist/main.js`: core, server and cli are
 * built and the CLI bundled once before any test (a fresh clone has neither). A failed build
 * fails the run with the compiler's or the bundler's messages.
 */
export default async function buildCli(): Promise<void> {
	for (const project of [
		"packages/core/tsconfig.build.json",
		"packages/client/tsconfig.build.json",
		"packages/server/tsconfig.build.json",
		"packages/cli/tsconfig.build.json",
	]) {
		await step(`building ${project}`, tsc, ["-p", project], root);
	}
	await step("bundling the CLI", rolldown, ["-c", "rolldown.config.mjs"], join(root, "packages/cli"));
}

async function step(what: string, command: string, args: string[], cwd: string): Promise<void> {
	try {
		await promisify(execFile)(command, args, { cwd });
	} catch (error) {
		const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
		throw new Error(`${what} for the CLI tests failed:\n${stdout}${stderr}`);
	}
}

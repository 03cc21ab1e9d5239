import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const tsc = join(root, "node_modules", ".bin", "tsc");

/**
 * The CLI tests run `node packages/cli/dist/main.js` as a child process, so core, server and cli are
 * built once before any test (a fresh clone has no dist/). A failed build fails the run with
 * the compiler's messages.
 */
export default async function buildCli(): Promise<void> {
	for (const project of [
		"packages/core/tsconfig.build.json",
		"packages/server/tsconfig.build.json",
		"packages/cli/tsconfig.build.json",
	]) {
		try {
			await promisify(execFile)(tsc, ["-p", project], { cwd: root });
		} catch (error) {
			const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
			throw new Error(`building ${project} for the CLI tests failed:\n${stdout}${stderr}`);
		}
	}
}

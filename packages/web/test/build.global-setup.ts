import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * Builds the web app once before the tests that need it (a fresh clone has none): into
 * packages/server/web, where the server serves it from and which the server package ships.
 */
export default async function buildWebApp(): Promise<void> {
	try {
		await promisify(execFile)(join(root, "node_modules", ".bin", "vite"), ["build", "--logLevel", "warn"], {
			cwd: join(root, "packages", "web"),
		});
	} catch (error) {
		const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
		throw new Error(`building the web app for its tests failed:\n${stdout}${stderr}`);
	}
}

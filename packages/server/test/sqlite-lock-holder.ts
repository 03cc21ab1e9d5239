import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const betterSqlite3 = createRequire(import.meta.url).resolve("better-sqlite3");

/**
 * Another process holding an SQLite database's write lock (`BEGIN EXCLUSIVE`) until `release`:
 * resolves once it holds it. `onCleanup` (the test harness's) kills it if the test ends first.
 * Used by the server's and the web app's tests of a locked store.
 */
export async function lockHolder(
	file: string,
	onCleanup: (cleanup: () => Promise<void>) => void,
): Promise<{ release(): Promise<void> }> {
	const script = `
		const db = new (require(${JSON.stringify(betterSqlite3)}))(${JSON.stringify(file)});
		db.exec("BEGIN EXCLUSIVE");
		console.log("locked");
		process.stdin.once("data", () => { db.exec("COMMIT"); db.close(); process.exit(0); });
	`;
	const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
	const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	onCleanup(async () => {
		child.kill("SIGKILL");
		await exited;
	});
	await new Promise<void>((resolve, reject) => {
		createInterface({ input: child.stdout }).once("line", () => resolve());
		child.once("exit", (code) => reject(new Error(`the lock holder exited with ${code}`)));
	});
	return {
		async release() {
			child.stdin.write("go\n");
			await exited;
		},
	};
}

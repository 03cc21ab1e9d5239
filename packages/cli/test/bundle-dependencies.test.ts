import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { type PackedPackage, specifiersOf, undeclaredImports } from "./package-imports.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const PACKAGES = ["packages/core", "packages/client", "packages/server", "packages/cli"];

/** The files `npm pack` would put in each package (the build of this run's global setup). */
async function packed(): Promise<PackedPackage[]> {
	const { stdout } = await promisify(execFile)(
		"npm",
		["pack", "--dry-run", "--json", "--ignore-scripts", ...PACKAGES.flatMap((dir) => ["-w", dir])],
		{ cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
	);
	const listed = JSON.parse(stdout) as { name: string; files: { path: string }[] }[];
	return listed.map((pack, i) => ({
		dir: join(ROOT, PACKAGES[i] ?? ""),
		name: pack.name,
		files: pack.files.map((file) => file.path),
	}));
}

describe("what the packages load at run time", () => {
	it("reads imports from the syntax tree: static, re-exported, dynamic and required; not names in comments or strings", () => {
		const code = [
			'import a from "a";',
			'export { b } from "@s/b/sub";',
			'export * from "./c.js";',
			'const d = await import("d");',
			"const e = __require('e');",
			"const f = require(`f`);",
			"const g = await import(name);",
			"// import h from 'h'; require('h')",
			'const text = "require(\\"i\\")";',
		].join("\n");
		expect(specifiersOf(code, "x.js")).toEqual(["a", "@s/b/sub", "./c.js", "d", "e", "<computed>"]);
	});

	it("every bare import of every shipped file of core, the client, server and the CLI is a builtin or a dependency of its package", async () => {
		const packs = await packed();
		expect(packs.map((pack) => pack.name)).toEqual([
			"@omniloop/core",
			"@omniloop/client",
			"@omniloop/server",
			"omniloop",
		]);
		for (const pack of packs)
			expect(
				pack.files.some((file) => file.endsWith(".js")),
				pack.name,
			).toBe(true);
		expect(
			packs.flatMap((pack) =>
				undeclaredImports(pack).map((miss) => `${pack.name}: ${miss.file} loads ${miss.specifier}`),
			),
		).toEqual([]);
	}, 60_000);
});

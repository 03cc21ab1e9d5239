import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

interface Manifest {
	name: string;
	scripts: { prepack?: string };
	bin?: Record<string, string>;
	exports?: Record<string, { default: string }>;
}

const manifest = (pkg: string): Manifest =>
	JSON.parse(readFileSync(`${ROOT}packages/${pkg}/package.json`, "utf8")) as Manifest;

/** `node ../../scripts/check-built.mjs <files>` in the package's folder, as npm runs its prepack. */
function checkBuilt(pkg: string, files: string[]) {
	return spawnSync(process.execPath, [`${ROOT}scripts/check-built.mjs`, ...files], {
		cwd: `${ROOT}packages/${pkg}`,
		encoding: "utf8",
	});
}

describe("npm pack refuses a package that was not built", () => {
	it("names the package and each missing file", () => {
		const ran = checkBuilt("cli", ["bundle/main.js", "bundle/gone.js", "dist/nothing.js"]);
		expect(ran.status).toBe(1);
		expect(ran.stderr).toBe(
			"omniloop: bundle/gone.js, dist/nothing.js are missing: build first (npm run build at the repository's root)\n",
		);
	});

	it("lets a built package be packed", () => {
		// The global setup built the command's bundle.
		expect(checkBuilt("cli", ["bundle/main.js"]).status).toBe(0);
	});

	it("checks every file a package's exports load", () => {
		for (const pkg of ["core", "client"]) {
			const { exports, scripts } = manifest(pkg);
			const checked = (scripts.prepack ?? "").split(" ").slice(2);
			const loaded = Object.values(exports ?? {}).map((entry) => entry.default.replace(/^\.\//, ""));
			expect(checked.sort(), pkg).toEqual(loaded.sort());
		}
		expect(manifest("cli").scripts.prepack).toBe("node ../../scripts/check-built.mjs bundle/main.js");
	});
});

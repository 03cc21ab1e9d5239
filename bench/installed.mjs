// The command as a user installs it (README: Install): the four packages packed and installed
// with npm into a temporary prefix, so startup is measured on the installed layout (its own
// node_modules, the bundle), not on the repository's. Install scripts are skipped: `--version`
// and `run` never load the server store's native SQLite binding, which is all they would build.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;

/** Installs the packed packages; returns the installed `omniloop` script and a cleanup. */
export function installOmniloop() {
	const { version } = JSON.parse(readFileSync(join(root, "packages/cli/package.json"), "utf8"));
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "omniloop-bench-install-")));
	const packs = join(dir, "packs");
	mkdirSync(packs);
	const quiet = { encoding: "utf8", stdio: ["ignore", "ignore", "inherit"] };
	execFileSync(
		"npm",
		[
			"pack",
			"--silent",
			"--pack-destination",
			packs,
			"-w",
			"packages/core",
			"-w",
			"packages/client",
			"-w",
			"packages/server",
			"-w",
			"packages/cli",
		],
		{ ...quiet, cwd: root },
	);
	const tarballs = [
		`omniloop-core-${version}.tgz`,
		`omniloop-client-${version}.tgz`,
		`omniloop-server-${version}.tgz`,
		`omniloop-${version}.tgz`,
	];
	execFileSync(
		"npm",
		[
			"install",
			"-g",
			"--prefix",
			join(dir, "prefix"),
			"--prefer-offline",
			"--ignore-scripts",
			"--no-audit",
			"--no-fund",
			"--silent",
			...tarballs.map((t) => join(packs, t)),
		],
		{ ...quiet, cwd: dir },
	);
	return {
		cli: realpathSync(join(dir, "prefix", "bin", "omniloop")),
		cleanup: () => rmSync(dir, { recursive: true, force: true }),
	};
}

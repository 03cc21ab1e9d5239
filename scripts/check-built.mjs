// A package's prepack (`npm pack`, `npm publish`): stops packing when the files the package runs
// from were not built, rather than making a tarball that installs and then fails at its first
// import. Run in the package's folder with those files' paths:
//   node ../../scripts/check-built.mjs dist/index.js
import { existsSync, readFileSync } from "node:fs";

const name = JSON.parse(readFileSync("package.json", "utf8")).name;
const missing = process.argv.slice(2).filter((path) => !existsSync(path));
if (missing.length > 0) {
	process.stderr.write(
		`${name}: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} missing: build first (npm run build at the repository's root)\n`,
	);
	process.exit(1);
}

#!/usr/bin/env node
// The installed command. It is committed (and executable) so npm links it at `npm ci` time,
// before `npm run build` has made dist/; the CLI itself is the built bundle/main.js (see rolldown.config.mjs).
//
// `--version` answers here, without loading the CLI (the engine, the terminal UI, the provider
// layer): scripts and shells call it most, and it should cost no more than node's own start.
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
	const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
	process.stdout.write(`${manifest.version}\n`);
} else {
	await import("../bundle/main.js");
}

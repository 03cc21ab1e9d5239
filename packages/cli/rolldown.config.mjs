// The installed command runs one bundle of the CLI and its engine (bundle/main.js, with the
// terminal UI, the provider SDKs and the MCP SDK as chunks loaded when first needed), not ~300
// separate modules: resolving and compiling them one by one cost ~130 ms before the first request.
// The server stays a package of its own (loaded only by `serve`; native SQLite, Postgres driver).
// What the bundle still imports at run time must be a dependency of this package: `yaml`, which
// core loads with `require` (rolldown does not follow it), and the server; test/bundle-dependencies.test.ts checks it.
import { defineConfig } from "rolldown";

/**
 * Ink imports its React DevTools bridge (`react-devtools-core`, and `ws` for it) when `DEV=true`.
 * It is a tool for developing Ink apps, no part of the command: the bundle gets an empty module
 * instead, so neither is bundled nor left as an import no package provides.
 */
const inkDevtools = /[\\/]ink[\\/]build[\\/]devtools\.js$/;
const withoutInkDevtools = {
	name: "without-ink-devtools",
	resolveId: {
		filter: { id: /devtools\.js$/ },
		handler: (id, importer) =>
			importer !== undefined && inkDevtools.test(new URL(id, `file://${importer}`).pathname) ? "\0ink-devtools" : null,
	},
	load: { filter: { id: /^\0ink-devtools$/ }, handler: () => "export {};" },
};

export default defineConfig({
	input: "dist/main.js",
	platform: "node",
	external: [/^node:/, "@omniloop/server", "yaml"],
	plugins: [withoutInkDevtools],
	output: { dir: "bundle", format: "esm", cleanDir: true, chunkFileNames: "[name]-[hash].js" },
});

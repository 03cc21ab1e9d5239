// The installed command runs one bundle of the CLI and its engine (bundle/main.js, with the
// terminal UI, the provider SDKs and the MCP SDK as chunks loaded when first needed), not ~300
// separate modules: resolving and compiling them one by one cost ~130 ms before the first request.
// The server stays a package of its own (loaded only by `serve`; native SQLite, Postgres driver).
// What the bundle still imports at run time must be a dependency of this package (the server
// alone); test/bundle-dependencies.test.ts checks it.
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

/**
 * Core loads the YAML parser lazily with a `require` from `createRequire` (why: its
 * src/config/yaml.ts), which a bundler does not follow: left so, the installed command needed
 * `yaml` beside it and resolved and compiled its ~80 CommonJS files one by one at each start with
 * an omniloop.yaml (`omniloop run` took ~500 ms of CPU, ~470 without). Without the createRequire
 * line the `require("yaml")` is the bundler's own: yaml is bundled, evaluated only at that call.
 */
const coreYaml = /[\\/]core[\\/]dist[\\/]config[\\/]yaml\.js$/;
const CREATE_REQUIRE = "const require = createRequire(import.meta.url);";
const yamlBundled = {
	name: "yaml-bundled",
	transform: {
		filter: { id: coreYaml },
		handler(code, id) {
			if (!code.includes(CREATE_REQUIRE) || !code.includes('require("yaml")'))
				throw new Error(`${id}: no longer loads yaml with createRequire; update rolldown.config.mjs`);
			return code.replace(CREATE_REQUIRE, "");
		},
	},
};

export default defineConfig({
	input: "dist/main.js",
	platform: "node",
	external: [/^node:/, "@omniloop/server"],
	plugins: [withoutInkDevtools, yamlBundled],
	output: { dir: "bundle", format: "esm", cleanDir: true, chunkFileNames: "[name]-[hash].js" },
});

// The installed command runs one bundle of the CLI and its engine (bundle/main.js, with the
// terminal UI, the provider SDKs and the MCP SDK as chunks loaded when first needed), not ~300
// separate modules: resolving and compiling them one by one cost ~130 ms before the first request.
// The server stays a package of its own (loaded only by `serve`; native SQLite, Postgres driver).
import { defineConfig } from "rolldown";

export default defineConfig({
	input: "dist/main.js",
	platform: "node",
	external: [/^node:/, "@omniloop/server", "better-sqlite3", "pg", "pg-native"],
	output: { dir: "bundle", format: "esm", cleanDir: true, chunkFileNames: "[name]-[hash].js" },
});

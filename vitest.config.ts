import { defineConfig } from "vitest/config";

export default defineConfig({
	resolve: {
		// Tests run against the TypeScript sources, so `npm test` needs no build first.
		conditions: ["@omniloop/source"],
	},
	test: {
		include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts"],
		// Except the CLI's, which run the built command line as a child process: built here, once;
		// the web app's, which open its built pages in the one Chromium started here; and a
		// throwaway Postgres for the server's tests on Postgres (packages/server/test/pg-database.ts).
		globalSetup: [
			"packages/cli/test/build.global-setup.ts",
			"packages/web/test/browser.global-setup.ts",
			"packages/server/test/postgres.global-setup.ts",
		],
		testTimeout: 20_000,
	},
});

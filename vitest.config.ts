import { defineConfig } from "vitest/config";

export default defineConfig({
	resolve: {
		// Tests run against the TypeScript sources, so `npm test` needs no build first.
		conditions: ["@omniloop/source"],
	},
	test: {
		include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts"],
		// Except the CLI's, which run the built command line as a child process: built here, once;
		// and the web app's, which open its built pages in the one Chromium started here.
		globalSetup: ["packages/cli/test/build.global-setup.ts", "packages/web/test/browser.global-setup.ts"],
		testTimeout: 20_000,
	},
});

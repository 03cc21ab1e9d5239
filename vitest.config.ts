import { defineConfig } from "vitest/config";

export default defineConfig({
	resolve: {
		// Tests run against the TypeScript sources, so `npm test` needs no build first.
		conditions: ["@omniloop/source"],
	},
	test: {
		include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts"],
		testTimeout: 20_000,
	},
});

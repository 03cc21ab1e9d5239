import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/**
 * One Vitest project per package, each with only the set-up its tests need (a global setup runs
 * only when a test of its project is queued), so `npx vitest run --project core` starts nothing:
 * - client: its tests start the server in process, from the sources;
 * - cli: its tests run the built command line as a child process, built once here;
 * - server: its multi-process tests run the built `dist/main.js` (the same build), and its tests on
 *   Postgres use a throwaway cluster (packages/server/test/pg-database.ts);
 * - web: its tests open the built app in the one Chromium started here;
 * - install: the packages packed and installed as a user installs them (README: Install), so it
 *   needs the build and the web app the server package ships.
 * Vitest runs the global setups one after another before any test, so two that build the web
 * app never write it at once.
 */
const build = "packages/cli/test/build.global-setup.ts";
const webApp = "packages/web/test/build.global-setup.ts";
const install = "packages/cli/test/install.test.ts";
/**
 * With `OMNILOOP_TEST_STORE=postgres` the server's suites run again with their store on Postgres
 * (.ci/run). Left out are those that would run exactly as before: they already run on Postgres in
 * every run (the cluster's, the Postgres store's, the store contract's on both backends, the
 * fencing and Trace sync tests), or their servers and stores are SQLite whatever the variable says
 * (SQLite's own restart; the workflow suites that spawn `omniloop serve` with an environment of
 * their own; the Trace usage import on a store it opens itself), or they check types only.
 */
const onPostgresAlready =
	process.env.OMNILOOP_TEST_STORE === "postgres"
		? [
				"packages/server/test/cluster*.test.ts",
				"packages/server/test/postgres-store.test.ts",
				"packages/server/test/store-contract.test.ts",
				"packages/server/test/restart.test.ts",
				"packages/server/test/trace-sync.test.ts",
				"packages/server/test/workflow-fencing.test.ts",
				"packages/server/test/workflows-restart.test.ts",
				"packages/server/test/workflows-random.test.ts",
				"packages/server/test/workflows-cli.test.ts",
				"packages/server/test/trace-usage.test.ts",
				"packages/server/test/wire-types.test.ts",
			]
		: [];

export default defineConfig({
	resolve: {
		// Tests run against the TypeScript sources, so `npm test` needs no build first.
		conditions: ["@omniloop/source"],
	},
	test: {
		testTimeout: 20_000,
		// Most tests wait on child processes, sockets, a browser or a database, not on a core: two
		// files at a time on a two-core machine (Vitest's default there is one), and the tests are
		// made to pass on a loaded machine (npm run test:loaded).
		maxWorkers: 2,
		// expect.poll waits for what it checks and returns as soon as it holds; its default 1 s to
		// give up in is a time limit a busy machine breaks (`npm run test:loaded`), not the work's size.
		expect: { poll: { timeout: 10_000 } },
		projects: [
			project("core", []),
			project("client", [build]),
			project("cli", [build], { exclude: [install] }),
			project("server", [build, "packages/server/test/postgres.global-setup.ts"], { exclude: onPostgresAlready }),
			project("web", [webApp, "packages/web/test/browser.global-setup.ts"]),
			{ extends: true, test: { name: "install", include: [install], globalSetup: [build, webApp] } },
		],
	},
});

function project(
	name: string,
	globalSetup: string[],
	{ exclude = [] as string[] } = {},
): TestProjectInlineConfiguration {
	return {
		extends: true as const,
		test: {
			name,
			include: [`packages/${name}/src/**/*.test.ts`, `packages/${name}/test/**/*.test.ts`],
			exclude: ["**/node_modules/**", ...exclude],
			globalSetup,
		},
	};
}

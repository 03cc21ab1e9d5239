import type { TestProject } from "vitest/node";
import { hasPostgres, missingPostgres, startThrowawayPostgres } from "../../../scripts/throwaway-postgres.mjs";

export { missingPostgres, PostgresSetupError } from "../../../scripts/throwaway-postgres.mjs";

declare module "vitest" {
	export interface ProvidedContext {
		/** The throwaway server's admin URL: tests make their own database on it (see pg-database.ts). */
		postgresUrl: string;
	}
}

/**
 * A throwaway Postgres for the whole run (scripts/throwaway-postgres.mjs): trust auth, no fsync
 * (nothing here must survive the run); stopped and removed afterwards. `.ci/run` installs the
 * binaries when they are missing.
 */
export default async function startPostgres(project: TestProject): Promise<() => void> {
	if (!hasPostgres()) {
		// The other suites still run; the tests that need Postgres fail, saying this (pg-database.ts).
		process.stderr.write(`${missingPostgres()}\n`);
		project.provide("postgresUrl", "");
		return () => {};
	}
	const postgres = await startThrowawayPostgres({
		settings: ["fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=300"],
	});
	project.provide("postgresUrl", postgres.url);
	return () => postgres.stop("immediate");
}

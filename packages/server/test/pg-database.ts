import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { onCleanup } from "./harness.js";
import { missingPostgres, PostgresSetupError } from "./postgres.global-setup.js";

/** The throwaway Postgres of this run (started by postgres.global-setup.ts). */
export function postgresAdminUrl(): string {
	const url = inject("postgresUrl");
	if (url === "") throw new PostgresSetupError(missingPostgres());
	return url;
}

/**
 * A new, empty database on the run's Postgres, dropped after the test: tests never see each
 * other's rows, and a test of several servers gives them all the same URL.
 */
export async function freshDatabase(): Promise<string> {
	const admin = new URL(postgresAdminUrl());
	const name = `t_${randomBytes(6).toString("hex")}`;
	const client = new pg.Client({ connectionString: admin.href });
	await client.connect();
	try {
		await client.query(`create database ${name}`);
	} finally {
		await client.end();
	}
	onCleanup(async () => {
		const dropper = new pg.Client({ connectionString: admin.href });
		await dropper.connect();
		try {
			await dropper.query(`drop database if exists ${name} with (force)`);
		} finally {
			await dropper.end();
		}
	});
	const url = new URL(admin.href);
	url.pathname = `/${name}`;
	return url.href;
}

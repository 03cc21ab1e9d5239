import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
	export interface ProvidedContext {
		/** The throwaway server's admin URL: tests make their own database on it (see pg-database.ts). */
		postgresUrl: string;
	}
}

const BIN = process.env.OMNILOOP_PG_BIN ?? newestPostgresBin();

/** Debian's newest installed Postgres (`/usr/lib/postgresql/<version>/bin`). */
function newestPostgresBin(): string {
	const root = "/usr/lib/postgresql";
	const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
	const newest = versions.sort((a, b) => Number(b) - Number(a))[0] ?? "15";
	return join(root, newest, "bin");
}
/** initdb and postgres refuse to run as root: as root, the cluster belongs to this user. */
const PG_USER = "omniloop-pg";

export class PostgresSetupError extends Error {
	override readonly name = "PostgresSetupError";
}

export function missingPostgres(): string {
	return `no Postgres binaries in ${BIN}: apt-get install -y postgresql (or set OMNILOOP_PG_BIN); npm test's pretest does this`;
}

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

/** Runs a Postgres binary, as PG_USER when we are root. */
function pg(binary: string, args: string[]): void {
	const command = join(BIN, binary);
	const asRoot = process.getuid?.() === 0;
	const result = asRoot
		? spawnSync("runuser", ["-u", PG_USER, "--", command, ...args], { encoding: "utf8" })
		: spawnSync(command, args, { encoding: "utf8" });
	if (result.status !== 0) {
		throw new PostgresSetupError(`${binary} ${args.join(" ")} failed: ${result.stderr || result.stdout}`);
	}
}

/**
 * A throwaway Postgres for the whole run: `initdb` into a temp folder, `pg_ctl start` on a free
 * loopback port, trust auth, no fsync (nothing here must survive the run); stopped and removed
 * afterwards. `.ci/run` installs the binaries when they are missing.
 */
export default async function startPostgres(project: TestProject): Promise<() => void> {
	if (!existsSync(join(BIN, "initdb"))) {
		// The other suites still run; the tests that need Postgres fail, saying this (pg-database.ts).
		process.stderr.write(`${missingPostgres()}\n`);
		project.provide("postgresUrl", "");
		return () => {};
	}
	if (process.getuid?.() === 0 && spawnSync("id", ["-u", PG_USER]).status !== 0) {
		execFileSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER]);
	}
	const dir = mkdtempSync(join(tmpdir(), "omniloop-pg-"));
	// The server's user must own its data folder; sockets go there too (not /var/run/postgresql).
	chmodSync(dir, 0o777);
	const data = join(dir, "data");
	pg("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
	const port = await freePort();
	const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
	pg("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
	project.provide("postgresUrl", `postgres://postgres@127.0.0.1:${port}/postgres`);
	return () => {
		try {
			pg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	};
}

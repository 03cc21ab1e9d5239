// A throwaway Postgres cluster, for the tests (packages/server/test/postgres.global-setup.ts) and
// the cluster bench (bench/cluster/run.mjs): plain JavaScript so that node runs it as the bench
// does, typed by throwaway-postgres.d.mts for the tests.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where the binaries are: $OMNILOOP_PG_BIN, else Debian's newest (`/usr/lib/postgresql/<version>/bin`). */
export const POSTGRES_BIN = process.env.OMNILOOP_PG_BIN ?? newestPostgresBin();
/** initdb and postgres refuse to run as root: as root, the cluster belongs to this user. */
const PG_USER = "omniloop-pg";

export class PostgresSetupError extends Error {
	name = "PostgresSetupError";
}

export function missingPostgres() {
	return `no Postgres binaries in ${POSTGRES_BIN}: apt-get install -y postgresql (or set OMNILOOP_PG_BIN); npm test's pretest does this`;
}

export function hasPostgres() {
	return existsSync(join(POSTGRES_BIN, "initdb"));
}

/**
 * `initdb` into a temp folder and `pg_ctl start` on a free loopback port, trust auth, `settings`
 * (`name=value`) as its `-c` options. `stop` stops it (`mode`: pg_ctl's, default fast) and
 * removes the folder.
 */
export async function startThrowawayPostgres({ settings = [], prefix = "omniloop-pg-" } = {}) {
	if (process.getuid?.() === 0 && spawnSync("id", ["-u", PG_USER]).status !== 0) {
		execFileSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER]);
	}
	const dir = mkdtempSync(join(tmpdir(), prefix));
	// The server's user must own its data folder; sockets go there too (not /var/run/postgresql).
	chmodSync(dir, 0o777);
	const data = join(dir, "data");
	pg("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
	const port = await freePort();
	const options = [`-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, ...settings.map((s) => `-c ${s}`)].join(" ");
	pg("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
	return {
		url: `postgres://postgres@127.0.0.1:${port}/postgres`,
		stop(mode = "fast") {
			try {
				pg("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		},
	};
}

function newestPostgresBin() {
	const root = "/usr/lib/postgresql";
	const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
	const newest = versions.sort((a, b) => Number(b) - Number(a))[0] ?? "15";
	return join(root, newest, "bin");
}

/** Runs a Postgres binary, as PG_USER when we are root. */
function pg(binary, args) {
	const command = join(POSTGRES_BIN, binary);
	const result =
		process.getuid?.() === 0
			? spawnSync("runuser", ["-u", PG_USER, "--", command, ...args], { encoding: "utf8" })
			: spawnSync(command, args, { encoding: "utf8" });
	if (result.status !== 0) {
		throw new PostgresSetupError(`${binary} ${args.join(" ")} failed: ${result.stderr || result.stdout}`);
	}
}

function freePort() {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

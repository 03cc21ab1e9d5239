import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { processRuns } from "@omniloop/core/internal";

/**
 * `$OMNILOOP_HOME/server.json`: the running local server's token (written by the server) and,
 * while `omniloop serve` runs, its URL and process id, so a CLI in the same home can find it
 * (docs/protocol.md). Written whole to a temporary file and renamed: a reader never sees half.
 */
export interface ServerRecord {
	token?: string;
	url?: string;
	pid?: number;
	/** The folder whose omniloop.yaml the server reads (absolute). */
	configDir?: string;
}

const FILE = "server.json";

export function readServerRecord(home: string): ServerRecord {
	const file = join(home, FILE);
	if (!existsSync(file)) return {};
	const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
	return typeof parsed === "object" && parsed !== null ? (parsed as ServerRecord) : {};
}

/** Adds this server's URL (without the token fragment), pid and config folder to what the file holds. */
export function recordServer(home: string, url: string, pid: number, configDir: string): void {
	const where = new URL(url);
	where.hash = "";
	write(home, { ...readServerRecord(home), url: where.href, pid, configDir: resolve(configDir) });
}

/** On the way out: the URL and pid go, if they are still this process's; the token stays. */
export function forgetServer(home: string, pid: number): void {
	const record = readServerRecord(home);
	if (record.pid !== pid) return;
	const running = new Set(["url", "pid", "configDir"]);
	write(home, Object.fromEntries(Object.entries(record).filter(([key]) => !running.has(key))));
}

/** The URL of a server recorded for this home whose process is alive; undefined when there is none. */
export function runningServer(
	home: string,
): { url: string; token: string | undefined; configDir: string | undefined } | undefined {
	const { url, pid, token, configDir } = readServerRecord(home);
	if (url === undefined || pid === undefined || !processRuns(pid)) return undefined;
	return { url, token, configDir };
}

function write(home: string, record: ServerRecord): void {
	const file = join(home, FILE);
	const temporary = `${file}.${process.pid}.tmp`;
	try {
		writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
		renameSync(temporary, file);
	} finally {
		rmSync(temporary, { force: true });
	}
}

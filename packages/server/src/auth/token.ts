import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_DIR_MODE } from "@omniloop/core";

/**
 * The server's token: `OMNILOOP_TOKEN` when set, else a fresh random one written to
 * `$OMNILOOP_HOME/server.json` (0600, key `token`) so local tools can find it.
 */
export function resolveToken(home: string, env: NodeJS.ProcessEnv, given?: string): string {
	if (given !== undefined && given !== "") return given;
	const fromEnv = env.OMNILOOP_TOKEN;
	if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
	const token = randomBytes(24).toString("base64url");
	mkdirSync(home, { recursive: true, mode: PRIVATE_DIR_MODE });
	const file = join(home, "server.json");
	writeFileSync(file, `${JSON.stringify({ token }, null, 2)}\n`, { mode: 0o600 });
	// writeFileSync keeps the mode of a file that already existed.
	chmodSync(file, 0o600);
	return token;
}

/** Reads the token `omniloop serve` wrote (for local tools and tests). */
export function readServerToken(home: string): string {
	const parsed: unknown = JSON.parse(readFileSync(join(home, "server.json"), "utf8"));
	const token = (parsed as { token?: unknown }).token;
	if (typeof token !== "string") throw new Error(`${join(home, "server.json")}: no token`);
	return token;
}

/** Compares in constant time, so the token cannot be guessed byte by byte from response times. */
export function tokenMatches(expected: string, candidate: string | undefined): boolean {
	if (candidate === undefined) return false;
	const a = Buffer.from(expected);
	const b = Buffer.from(candidate);
	return a.length === b.length && timingSafeEqual(a, b);
}

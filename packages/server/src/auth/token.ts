import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_DIR_MODE, replacePrivateFile } from "@omniloop/core/internal";

/** `$OMNILOOP_HOME/server.json` is there but holds no token: it is neither used nor overwritten. */
export class ServerTokenFileError extends Error {
	override readonly name = "ServerTokenFileError";
	constructor(
		readonly file: string,
		problem: string,
	) {
		super(
			`${file}: ${problem}; it keeps the server's token as {"token": "…"}: fix it, or start with --new-token to replace it`,
		);
	}
}

/** How the server's token is chosen: the first of these that is set wins. */
export interface TokenChoice {
	/** Given by the embedding program (ServerOptions.token). */
	readonly given?: string;
	/** `omniloop serve --new-token`: a fresh token replaces the one kept. */
	readonly fresh?: boolean;
}

/**
 * The server's token: the given one, else `OMNILOOP_TOKEN`, else the one kept in
 * `$OMNILOOP_HOME/server.json` (0600, key `token`), else a fresh random one written there. Kept
 * so a restart (a crash's included) reuses it: open tabs and local tools keep working.
 */
export function resolveToken(home: string, env: NodeJS.ProcessEnv, choice: TokenChoice = {}): string {
	if (choice.given !== undefined && choice.given !== "") return choice.given;
	const fromEnv = env.OMNILOOP_TOKEN;
	if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
	const kept = choice.fresh === true ? undefined : keptToken(home);
	if (kept !== undefined) return kept;
	const token = randomBytes(24).toString("base64url");
	writeToken(home, token);
	return token;
}

/** The token of server.json; undefined when there is no such file. */
function keptToken(home: string): string | undefined {
	const file = join(home, "server.json");
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw error;
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		throw new ServerTokenFileError(file, "not JSON");
	}
	const token = (parsed as { token?: unknown } | null)?.token;
	if (typeof token !== "string" || token === "") throw new ServerTokenFileError(file, 'no string "token"');
	// A file another tool wrote with a looser mode is tightened: the token opens every Session.
	chmodSync(file, 0o600);
	return token;
}

/** Written beside and renamed into place: a crash leaves the old file or the new one, never half of one. */
function writeToken(home: string, token: string): void {
	mkdirSync(home, { recursive: true, mode: PRIVATE_DIR_MODE });
	replacePrivateFile(join(home, "server.json"), `${JSON.stringify({ token }, null, 2)}\n`);
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

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionStore } from "@omniloop/core";
import { PRIVATE_FILE_MODE } from "@omniloop/core/internal";

const FILE = "cli-origin.json";

/**
 * Where a Session's config came from (its --config-dir), kept beside its Trace: the Trace
 * records the folder and the model, not which omniloop.yaml defined them, and --resume from
 * another folder must use the same one.
 */
export function saveOrigin(home: string, sessionId: string, configDir: string): void {
	try {
		writeFileSync(join(new SessionStore(home).folder(sessionId), FILE), `${JSON.stringify({ configDir })}\n`, {
			mode: PRIVATE_FILE_MODE,
		});
	} catch {
		// Without it, --resume falls back to the Session's folder and the current one.
	}
}

export function readOrigin(home: string, sessionId: string): { configDir: string } | undefined {
	try {
		const value: unknown = JSON.parse(readFileSync(join(new SessionStore(home).folder(sessionId), FILE), "utf8"));
		const configDir = (value as { configDir?: unknown }).configDir;
		return typeof configDir === "string" ? { configDir } : undefined;
	} catch {
		return undefined;
	}
}

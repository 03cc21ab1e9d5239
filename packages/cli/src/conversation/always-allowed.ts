import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionDir } from "@omniloop/core";

const FILE = "always-allowed.json";

/**
 * The tools a person answered "always" for in a Session. They are the CLI's, not the engine's
 * (the Trace records each decision as a plain allow), so they are kept in a file beside the
 * Session's Trace and read again on --resume.
 */
export class AlwaysAllowed {
	private readonly names: Set<string>;

	constructor(
		private readonly home: string,
		private readonly sessionId: string,
	) {
		this.names = new Set(readNames(join(sessionDir(home, sessionId), FILE)));
	}

	has(name: string): boolean {
		return this.names.has(name);
	}

	add(name: string): void {
		this.names.add(name);
		try {
			writeFileSync(join(sessionDir(this.home, this.sessionId), FILE), `${JSON.stringify([...this.names])}\n`);
		} catch {
			// Not kept for a later --resume; it still holds in this process.
		}
	}
}

function readNames(path: string): string[] {
	try {
		const value: unknown = JSON.parse(readFileSync(path, "utf8"));
		return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
	} catch {
		return [];
	}
}

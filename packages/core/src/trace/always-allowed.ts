import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionDir } from "./trace-files.js";

const FILE = "always-allowed.json";

/**
 * The tools a person answered "always" for in a Session: later calls of them are allowed without
 * asking, for the rest of the Session. A host's grant, not the engine's (the Trace records each
 * decision as a plain allow by the user), kept in a file beside the Session's Trace so it holds
 * after a resume and in every host: the CLI and the server read the same file. Read when first
 * needed.
 */
export class AlwaysAllowed {
	private names: Set<string> | undefined;

	constructor(
		private readonly home: string,
		private readonly sessionId: string,
	) {}

	has(name: string): boolean {
		return this.loaded().has(name);
	}

	/**
	 * Grants `name` and keeps it. The file is read again first, so a grant another host made
	 * meanwhile is kept too, and replaced whole (a rename), so a crash never leaves it half written.
	 */
	add(name: string): void {
		const names = this.loaded();
		if (names.has(name)) return;
		const path = join(sessionDir(this.home, this.sessionId), FILE);
		for (const kept of readNames(path)) names.add(kept);
		names.add(name);
		try {
			const written = `${path}.${process.pid}.tmp`;
			writeFileSync(written, `${JSON.stringify([...names])}\n`);
			renameSync(written, path);
		} catch {
			// Not kept for a later resume; it still holds in this process.
		}
	}

	private loaded(): Set<string> {
		this.names ??= new Set(readNames(join(sessionDir(this.home, this.sessionId), FILE)));
		return this.names;
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

import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_FILE_MODE } from "./private-files.js";
import { sessionDir } from "./trace-files.js";

const FILE = "always-allowed.json";

/**
 * The tools a person answered "always" for in a Session: later calls of them are allowed without
 * asking, for the rest of the Session. A host's grant, not the engine's (the Trace records each
 * decision as a plain allow by the user), kept in a file beside the Session's Trace so it holds
 * after a resume and in every host on the same home: the CLI and the server read the same file.
 */
export class AlwaysAllowed {
	/** Grants made here: they hold in this process even if the file could not be written. */
	private readonly madeHere = new Set<string>();

	constructor(
		private readonly home: string,
		private readonly sessionId: string,
	) {}

	/** Read from the file each time (a person-paced question): a grant another host made is seen at once. */
	has(name: string): boolean {
		return this.madeHere.has(name) || readNames(this.path).includes(name);
	}

	/**
	 * Grants `name` and keeps it. The file is read again first, so a grant another host made
	 * meanwhile is kept too, and replaced whole (a rename), so a crash never leaves it half written.
	 */
	add(name: string): void {
		this.madeHere.add(name);
		const names = new Set(readNames(this.path));
		if (names.has(name)) return;
		names.add(name);
		try {
			const written = `${this.path}.${process.pid}.tmp`;
			writeFileSync(written, `${JSON.stringify([...names])}\n`, { mode: PRIVATE_FILE_MODE });
			renameSync(written, this.path);
		} catch {
			// Not kept for a later resume; it still holds in this process.
		}
	}

	private get path(): string {
		return join(sessionDir(this.home, this.sessionId), FILE);
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

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { replacePrivateFile } from "../trace/private-files.js";
import { sessionDir } from "../trace/trace-files.js";

const FILE = "always-allowed.json";

/**
 * Grants made in this process, by file: they hold here even if the file could not be written,
 * whichever instance reads them (a host's, to add; the Session's engine, to decide).
 */
const madeHere = new Map<string, Set<string>>();

/**
 * The tools a person answered "always" for in a Session: later calls of them are allowed without
 * asking, for the rest of the Session. A host makes the grant (its `approve` hears the answer);
 * the engine reads it before it would announce a question (`confirmation_required`), so such a
 * call is decided at once and recorded `by: "always"`. Kept in a file beside the Session's Trace
 * so it holds after a resume and in every host on the same home: the CLI and the server read the
 * same file.
 */
export class AlwaysAllowed {
	private readonly path: string;

	constructor(home: string, sessionId: string);
	/** The grants kept in a Session's folder (a Session's engine knows its folder, not its home). */
	constructor(place: { sessionFolder: string });
	constructor(homeOrPlace: string | { sessionFolder: string }, sessionId = "") {
		const folder = typeof homeOrPlace === "string" ? sessionDir(homeOrPlace, sessionId) : homeOrPlace.sessionFolder;
		this.path = join(folder, FILE);
	}

	/** Read from the file each time (a person-paced question): a grant another host made is seen at once. */
	has(name: string): boolean {
		return madeHere.get(this.path)?.has(name) === true || readNames(this.path).includes(name);
	}

	/**
	 * Grants `name` and keeps it. The file is read again first, so a grant another host made
	 * meanwhile is kept too, and replaced whole (a rename), so a crash never leaves it half written.
	 */
	add(name: string): void {
		let here = madeHere.get(this.path);
		if (here === undefined) {
			here = new Set();
			madeHere.set(this.path, here);
		}
		here.add(name);
		const names = new Set(readNames(this.path));
		if (names.has(name)) return;
		names.add(name);
		try {
			replacePrivateFile(this.path, `${JSON.stringify([...names])}\n`);
		} catch {
			// Not kept for a later resume; it still holds in this process.
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

import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sessionDir } from "../trace/trace-files.js";
import { AlwaysAllowed } from "./always-allowed.js";

const homes: string[] = [];
afterEach(() => {
	for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function session(): string {
	const home = mkdtempSync(join(tmpdir(), "omniloop-always-"));
	homes.push(home);
	mkdirSync(sessionDir(home, "s"), { recursive: true });
	return home;
}

describe("the tools a person allowed for the rest of a Session", () => {
	it("hold for every host of the Session, and a grant one made is not lost to another's", () => {
		const home = session();
		const cli = new AlwaysAllowed(home, "s");
		const server = new AlwaysAllowed(home, "s");
		expect(cli.has("shell")).toBe(false);
		expect(server.has("shell")).toBe(false);
		cli.add("shell");
		// The other host sees it at its next question, not only after a restart.
		expect(server.has("shell")).toBe(true);
		server.add("write_file");
		const later = new AlwaysAllowed(home, "s");
		expect(later.has("shell") && later.has("write_file")).toBe(true);
		// Replaced whole: no temporary file is left beside the Trace.
		expect(readdirSync(sessionDir(home, "s"))).toEqual(["always-allowed.json"]);
	});

	it("still hold in this process when the Session's folder is gone", () => {
		const home = session();
		const grants = new AlwaysAllowed(home, "s");
		rmSync(sessionDir(home, "s"), { recursive: true });
		grants.add("shell");
		expect(grants.has("shell")).toBe(true);
		// The Session's engine reads them through an instance of its own: it sees the grant too.
		expect(new AlwaysAllowed({ sessionFolder: sessionDir(home, "s") }).has("shell")).toBe(true);
	});

	it("named by the Session's folder, they are the grants named by home and id", () => {
		const home = session();
		new AlwaysAllowed(home, "s").add("shell");
		const byFolder = new AlwaysAllowed({ sessionFolder: sessionDir(home, "s") });
		expect(byFolder.has("shell")).toBe(true);
		expect(byFolder.has("write_file")).toBe(false);
	});
});

import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { readFrames, startServer, tempDirs } from "./harness.js";

function mode(path: string): string {
	return (statSync(path).mode & 0o777).toString(8);
}

describe("what the server writes in the home is the user's alone", () => {
	it("the home and sessions/ are 0700; server.json, the SQLite store (and its WAL files) and Traces 0600", async () => {
		const dirs = tempDirs();
		const t = await startServer({ model: new ScriptedModel([[{ type: "text", text: "hi" }]]), token: "" }, dirs);
		const id = await t.createSession();
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		expect(mode(dirs.home)).toBe("700");
		expect(mode(join(dirs.home, "sessions"))).toBe("700");
		expect(mode(join(dirs.home, "sessions", id))).toBe("700");
		for (const name of readdirSync(join(dirs.home, "sessions", id))) {
			expect([name, mode(join(dirs.home, "sessions", id, name))]).toEqual([name, "600"]);
		}
		expect(mode(join(dirs.home, "server.json"))).toBe("600");
		if (process.env.OMNILOOP_TEST_STORE !== "postgres") {
			for (const name of ["omniloop.db", "omniloop.db-wal", "omniloop.db-shm"]) {
				const path = join(dirs.home, name);
				if (name === "omniloop.db" || existsSync(path)) expect([name, mode(path)]).toEqual([name, "600"]);
			}
		}
	});
});

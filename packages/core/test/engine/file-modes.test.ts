import { chmodSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import { AlwaysAllowed } from "../../src/session-store/always-allowed.js";
import { saveTitle } from "../../src/session-store/session-index.js";
import { sessionDir } from "../../src/trace/trace-files.js";
import { cleanup, collect, harness, tempDir } from "../harness.js";

afterEach(cleanup);

function mode(path: string): string {
	return (statSync(path).mode & 0o777).toString(8);
}

/** Every file and folder under `dir` with its mode, relative to `dir`. */
function modes(dir: string, prefix = ""): Record<string, string> {
	const out: Record<string, string> = {};
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		out[`${prefix}${entry.name}${entry.isDirectory() ? "/" : ""}`] = mode(path);
		if (entry.isDirectory()) Object.assign(out, modes(path, `${prefix}${entry.name}/`));
	}
	return out;
}

describe("the home is the user's alone: folders 0700, files 0600", () => {
	it("on creation, for what a Session leaves (Traces, always-allowed, its title, saved tool output), and on rotation", async () => {
		// A home an older omniloop (or the user) made world-readable.
		const home = join(tempDir("omniloop-modes-"), "home");
		mkdirSync(join(home, "sessions"), { recursive: true });
		chmodSync(home, 0o755);
		chmodSync(join(home, "sessions"), 0o755);
		const long = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\n");
		const { session } = await harness(
			[
				[{ type: "tool_call", name: "shell", args: { command: `printf '${long}'` } }],
				[{ type: "text", text: "done" }],
				[{ type: "text", text: "[summary]ran a command[/summary]" }],
			],
			{ home, builtins: true, approval: { "*": "allow" } },
		);
		await collect(session.run([userText("go")]));
		await collect(session.compact());
		new AlwaysAllowed(home, session.id).add("shell");
		saveTitle(home, session.id, "a title");
		await session.close();

		expect(mode(home)).toBe("700");
		expect(mode(join(home, "sessions"))).toBe("700");
		const found = modes(sessionDir(home, session.id));
		expect(Object.keys(found).sort()).toEqual(
			expect.arrayContaining(["always-allowed.json", "trace.jsonl", "trace_002.jsonl", "tool-outputs/"]),
		);
		for (const [name, m] of Object.entries(found))
			expect([name, m]).toEqual([name, name.endsWith("/") ? "700" : "600"]);
		expect(mode(sessionDir(home, session.id))).toBe("700");
	});
});

import { existsSync } from "node:fs";
import { join } from "node:path";
import { SessionStore } from "@omniloop/core";
import { describe, expect, it } from "vitest";
import { type CliFixture, useFixtures } from "./cli-harness.js";

const start = useFixtures();

async function oneSession(f: CliFixture, answer = "The answer."): Promise<string> {
	f.server.enqueue({ text: answer });
	const { cli, exit } = await f.run(["run", "--local", "plan the trip"]);
	expect(exit.code, cli.transcript()).toBe(0);
	return new SessionStore(f.home).list()[0]?.sessionId as string;
}

describe("omniloop sessions rename, delete and export", () => {
	it("rename gives a Session a title (trimmed); an empty or over-long one is a usage error and the title stays", async () => {
		const f = await start();
		const id = await oneSession(f);
		const renamed = await f.run(["sessions", "rename", id.slice(0, 8), "  Trip", "to", "Lisbon  "]);
		expect(renamed.exit.code, renamed.cli.transcript()).toBe(0);
		expect(renamed.cli.output.stdout).toContain(`Session ${id} is now titled: Trip to Lisbon`);
		expect(new SessionStore(f.home).list()[0]?.title).toBe("Trip to Lisbon");
		const listed = await f.run(["sessions"]);
		expect(listed.cli.stdoutLines[1]).toMatch(/ Trip to Lisbon$/);

		const empty = await f.run(["sessions", "rename", id, "   "]);
		expect(empty.exit.code).toBe(2);
		expect(empty.cli.output.stderr).toContain("omniloop: title: empty");
		const long = await f.run(["sessions", "rename", id, "x".repeat(201)]);
		expect(long.exit.code).toBe(2);
		expect(long.cli.output.stderr).toContain("title: 201 characters; at most 200 after trimming");
		expect(new SessionStore(f.home).list()[0]?.title).toBe("Trip to Lisbon");
	});

	it("/rename in a chat titles its Session", async () => {
		const f = await start();
		f.server.enqueue({ text: "Hello back." });
		const chat = f.start(["chat", "--local"]);
		chat.write("hello\n");
		await chat.waitFor("Hello back.", "stdout");
		chat.write("/rename   My own title \n");
		await chat.waitFor("title: My own title");
		chat.write("/rename  \n");
		await chat.waitFor("/rename: title: empty");
		chat.endInput();
		expect((await chat.waitForExit()).code, chat.transcript()).toBe(0);
		expect(new SessionStore(f.home).list()[0]?.title).toBe("My own title");
	});

	it("delete asks first: n keeps the Session, y deletes its folder; --yes does not ask", async () => {
		const f = await start();
		const id = await oneSession(f);
		const kept = f.start(["sessions", "delete", id]);
		await kept.waitFor(`Delete Session ${id} (plan the trip) and its Trace? [y/N]`, "stderr");
		kept.write("n\n");
		expect((await kept.waitForExit()).code).toBe(0);
		expect(existsSync(join(f.home, "sessions", id))).toBe(true);
		const gone = f.start(["sessions", "delete", id.slice(0, 8)]);
		await gone.waitFor("[y/N]", "stderr");
		gone.write("y\n");
		expect((await gone.waitForExit()).code, gone.transcript()).toBe(0);
		expect(gone.output.stdout).toContain(`deleted Session ${id}`);
		expect(existsSync(join(f.home, "sessions", id))).toBe(false);

		const other = await oneSession(f);
		const forced = await f.run(["--yes", "sessions", "delete", other]);
		expect(forced.exit.code, forced.cli.transcript()).toBe(0);
		expect(forced.cli.output.stderr).not.toContain("[y/N]");
		expect(new SessionStore(f.home).list()).toEqual([]);
	});

	it("search finds Sessions by title and by their messages' text, saying where", async () => {
		const f = await start();
		const trip = await oneSession(f, "Go in May, when the jacarandas bloom.");
		f.server.enqueue({ text: "Fine." });
		expect((await f.run(["run", "--local", "jacaranda facts"])).exit.code).toBe(0);
		const facts = new SessionStore(f.home).list().find((s) => s.sessionId !== trip)?.sessionId as string;
		const found = await f.run(["sessions", "search", "JACARANDAS", "bloom"]);
		expect(found.exit.code, found.cli.transcript()).toBe(0);
		expect(found.cli.stdoutLines).toEqual([`${trip}  plan the trip`, "    Go in May, when the jacarandas bloom."]);
		const both = await f.run(["--json", "sessions", "search", "jacaranda"]);
		const hits = both.cli.stdoutLines.map((line) => JSON.parse(line) as { id: string; match: { in: string } });
		expect(hits.map((h) => [h.id, h.match.in])).toEqual([
			[facts, "title"],
			[trip, "text"],
		]);
		const none = await f.run(["sessions", "search", "nowhere"]);
		expect(none.cli.output.stdout).toContain('no Session\'s title or messages hold "nowhere"');
	});

	it("export prints the Session as Markdown (default) or as JSON, its OmniMessages", async () => {
		const f = await start();
		const id = await oneSession(f, "Go in **May**.");
		const markdown = await f.run(["sessions", "export", id]);
		expect(markdown.exit.code, markdown.cli.transcript()).toBe(0);
		expect(markdown.cli.output.stdout).toBe(
			"# plan the trip\n\n## You\n\nplan the trip\n\n## Agent\n\nGo in **May**.\n",
		);
		const json = await f.run(["sessions", "export", id, "--format", "json"]);
		const messages = JSON.parse(json.cli.output.stdout) as { type: string; text?: string }[];
		expect(messages.filter((m) => m.type === "assistant_text").map((m) => m.text)).toEqual(["Go in **May**."]);
		expect(messages.map((m) => m.type)).toContain("token_usage");
		const bad = await f.run(["sessions", "export", id, "--format", "pdf"]);
		expect(bad.exit.code).toBe(2);
		expect(bad.cli.output.stderr).toContain('--format: "pdf" is neither md nor json');
	});
});

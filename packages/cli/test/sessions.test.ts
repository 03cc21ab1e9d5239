import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OmniMessage, SessionSummary } from "@omniloop/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliFixture, expectInOrder } from "./cli-harness.js";

/** One home for the file: the later tests list, replay and resume the Sessions the first ones make. */
let f: CliFixture;
beforeAll(async () => {
	f = await CliFixture.start();
});
afterAll(async () => {
	await f.cleanup();
});

const ids: string[] = [];

function sessionIdOf(stdoutLines: readonly string[]): string {
	const summaries = stdoutLines.map((line) => JSON.parse(line) as SessionSummary);
	return summaries[0]?.sessionId ?? "";
}

describe("omniloop sessions, replay and --resume", () => {
	it("two Tasks make two Sessions", async () => {
		f.server.enqueue({ text: "The first answer.", usage: { input: 11, output: 3 } });
		const first = await f.run(["run", "the first task"]);
		expect(first.exit.code, first.cli.transcript()).toBe(0);
		ids.push(sessionIdOf((await f.run(["--json", "sessions"])).cli.stdoutLines));

		writeFileSync(join(f.workspace, "notes.md"), "# Notes\n");
		f.server.enqueue(
			{
				toolCalls: [{ id: "call_r", name: "read_file", arguments: { path: "notes.md" } }],
				usage: { input: 20, output: 5 },
			},
			{ text: "The notes have a heading.", usage: { input: 30, output: 7 } },
		);
		const second = await f.run(["run", "read the notes"]);
		expect(second.exit.code, second.cli.transcript()).toBe(0);
		ids.push(sessionIdOf((await f.run(["--json", "sessions"])).cli.stdoutLines));
		expect(new Set(ids).size).toBe(2);
	});

	it("sessions lists them newest first with id, date, agent/model, folder, tokens and title", async () => {
		const { cli, exit } = await f.run(["sessions"]);
		expect(exit.code, cli.transcript()).toBe(0);
		const lines = cli.stdoutLines;
		expect(lines[0]).toMatch(/^ID +UPDATED +AGENT\/MODEL +FOLDER +TOKENS +TITLE$/);
		expect(lines[1]).toMatch(
			new RegExp(
				`^${ids[1]} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +default_agent/openai-compatible:fake-model +${f.workspace} +62 +read the notes$`,
			),
		);
		expect(lines[2]).toMatch(new RegExp(`^${ids[0]} .* +14 +the first task$`));
	});

	it("replay prints a Session's Trace as its user saw it; a start of the id is enough", async () => {
		const { cli, exit } = await f.run(["replay", (ids[1] as string).slice(0, 8)]);
		expect(exit.code, cli.transcript()).toBe(0);
		const out = cli.output.stdout;
		expect(out).toContain(`── Session ${ids[1]} · trace file 1 of 1`);
		const order = [
			"you> read the notes",
			"→ read_file notes.md",
			"│      1  # Notes",
			"The notes have a heading.",
			"── done · input 50 · cached 0 · output 12 · total 62 tokens",
		];
		expectInOrder(out, order);
	});

	it("replay --json prints the Trace's messages, one a line", async () => {
		const { cli, exit } = await f.run(["--json", "replay", ids[0] as string]);
		expect(exit.code, cli.transcript()).toBe(0);
		const messages = cli.stdoutLines.map((line) => JSON.parse(line) as OmniMessage);
		expect(messages[0]).toMatchObject({ type: "user_text", text: "the first task" });
		expect(messages.find((m) => m.type === "assistant_text")).toMatchObject({ text: "The first answer." });
		expect(messages.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
		expect(messages.some((m) => m.type.startsWith("partial_"))).toBe(false);
	});

	it("an unknown id is a clear error with exit code 2", async () => {
		for (const args of [
			["replay", "no-such-session"],
			["--resume", "no-such-session", "run", "x"],
		]) {
			const { cli, exit } = await f.run(args);
			expect(exit.code, cli.transcript()).toBe(2);
			expect(cli.output.stderr).toContain('no session "no-such-session"');
			expect(cli.output.stderr).toContain("`omniloop sessions` lists them");
		}
	});

	it("--resume continues a Session: the model sees the earlier conversation", async () => {
		f.server.enqueue({ text: "Still here." });
		const before = f.server.requests.length;
		const { cli, exit } = await f.run(["--resume", ids[0] as string, "run", "and now?"]);
		expect(exit.code, cli.transcript()).toBe(0);
		const body = f.requestBody(before);
		expect(body).toContain("the first task");
		expect(body).toContain("The first answer.");
		expect(body).toContain("and now?");
	});

	it("--continue goes on with this folder's newest Session; --resume without an id off a terminal says what to pass", async () => {
		f.server.enqueue({ text: "Continued." });
		const before = f.server.requests.length;
		const { cli, exit } = await f.run(["--continue", "run", "go on"]);
		expect(exit.code, cli.transcript()).toBe(0);
		const body = f.requestBody(before);
		// The newest Session here is the first one, resumed by the test above, not "read the notes".
		expect(body).toContain("and now?");
		expect(body).not.toContain("read the notes");
		expect(body).toContain("go on");

		for (const args of [["--resume", "run", "x"], ["--resume"], ["run", "x", "--resume"]]) {
			const picked = await f.run(args);
			expect(picked.exit.code, picked.cli.transcript()).toBe(2);
			expect(picked.cli.output.stderr).toContain("needs a terminal for that: pass --resume <id>");
			expect(picked.cli.output.stderr).toContain("--continue");
		}

		const elsewhere = mkdtempSync(join(tmpdir(), "omniloop-cli-nosessions-"));
		try {
			const none = f.startIn(elsewhere, ["--config-dir", f.configDir, "-c", "run", "x"]);
			none.endInput();
			expect((await none.waitForExit()).code, none.transcript()).toBe(2);
			expect(none.output.stderr).toContain(`no Session in ${elsewhere} to continue`);
		} finally {
			rmSync(elsewhere, { recursive: true, force: true });
		}
	});
});

import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { enterLine, PROMPT } from "./chat-prompt.js";
import { useFixtures } from "./cli-harness.js";

const start = useFixtures();

describe("omniloop chat: instructions, /undo, /diff, /rewind, /fork", () => {
	it("shows the AGENTS.md loaded at start and sends it; a write is undone with /undo, listed by /diff; /rewind picks a message; /instructions reload", async () => {
		const f = await start();
		writeFileSync(join(f.workspace, "AGENTS.md"), "Always answer in haiku.\n");
		f.server.enqueue(
			{ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "note.txt", content: "hello\n" } }] },
			{ text: "Wrote the note." },
			{ text: "Second answer." },
		);
		const cli = f.start(["--yes", "chat"]);
		await cli.waitFor(`instructions: ${join(f.workspace, "AGENTS.md")} (24 B)`, "stderr");
		await cli.waitFor(PROMPT, "stderr");
		await enterLine(cli, "write a note", "Wrote the note.");
		expect(f.requestBody(0)).toContain("Always answer in haiku.");
		expect(f.requestBody(0)).toContain("[project_instructions]");
		expect(readFileSync(join(f.workspace, "note.txt"), "utf8")).toBe("hello\n");
		cli.write("/diff\n");
		await cli.waitFor("added note.txt", "stdout");
		await cli.waitFor("+hello", "stdout");
		await cli.waitFor(PROMPT, "stderr");
		expect(cli.transcript()).not.toContain("+++ b/note.txt");
		cli.write("/undo\n");
		await cli.waitFor("restored 1 file(s) to checkpoint", "stdout");
		expect(existsSync(join(f.workspace, "note.txt"))).toBe(false);
		await cli.waitFor(PROMPT, "stderr");
		await enterLine(cli, "again", "Second answer.");
		cli.write("/rewind\n");
		await cli.waitFor("2. again", "stdout");
		await enterLine(cli, "2", "rewound: the conversation goes on from before message");
		const copy = `${f.workspace}-fork`;
		cli.write(`/fork ${copy}\n`);
		await cli.waitFor("1. write a note", "stdout");
		cli.write("1\n");
		await cli.waitFor("forked as Session", "stdout");
		// The files as they were before that message: the note came later.
		expect(existsSync(join(copy, "AGENTS.md"))).toBe(true);
		expect(existsSync(join(copy, "note.txt"))).toBe(false);
		rmSync(copy, { recursive: true, force: true });
		await cli.waitFor(PROMPT, "stderr");
		writeFileSync(join(f.workspace, "AGENTS.md"), "Answer in prose.\n");
		cli.write("/instructions reload\n");
		await cli.waitFor("instructions reloaded:", "stdout");
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
	});

	it("an undo that keeps a file changed outside the agent names the /restore that overwrites it; that restore goes no further back", async () => {
		const f = await start();
		writeFileSync(join(f.workspace, "older.txt"), "the person's, before\n");
		f.server.enqueue(
			{ toolCalls: [{ id: "call_1", name: "shell", arguments: { command: "rm older.txt" } }] },
			{ text: "Removed it." },
			{ toolCalls: [{ id: "call_2", name: "write_file", arguments: { path: "a.txt", content: "agent\n" } }] },
			{ text: "Wrote a." },
		);
		const cli = f.start(["--yes", "chat"]);
		await cli.waitFor(PROMPT, "stderr");
		await enterLine(cli, "remove older", "Removed it.");
		await enterLine(cli, "write a", "Wrote a.");
		writeFileSync(join(f.workspace, "a.txt"), "the person's\n");
		await enterLine(cli, "/undo", "kept, changed outside the agent: a.txt");
		const hint = /\(\/restore (\S+) --overwrite to restore them too\)/.exec(cli.transcript());
		expect(hint, cli.transcript()).not.toBeNull();
		await enterLine(cli, `/restore ${hint?.[1]} --overwrite`, "restored 1 file(s) to checkpoint");
		// The turn before is not undone: the file the first turn removed stays removed.
		expect(existsSync(join(f.workspace, "a.txt"))).toBe(false);
		expect(existsSync(join(f.workspace, "older.txt"))).toBe(false);
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
	});
});

import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
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
		// In a chat, /undo is a command: the checkpoint's line says what it does.
		expect(cli.transcript()).toMatch(/checkpoint \w+ \(turn\) — \/undo puts the files back\n/);
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
		// The restore's own checkpoint is undone with the /restore its line names, not /undo (a turn further back).
		expect(cli.transcript()).toMatch(/checkpoint \w+ \(restore\)\n/);
		await cli.waitFor(PROMPT, "stderr");
		await enterLine(cli, "again", "Second answer.");
		cli.write("/rewind\n");
		await cli.waitFor("2. again", "stdout");
		// The message as the picker showed it, not the Trace's seq.
		await enterLine(cli, "2", 'rewound to before message 2 ("again")');
		// A relative folder lies beside the workspace, not inside it (its checkpoints would hold the fork's files).
		const copy = `${f.workspace}-fork`;
		writeFileSync(join(f.workspace, ".gitignore"), ".env\n");
		writeFileSync(join(f.workspace, ".env"), "KEY=1\n");
		cli.write(`/fork ${basename(copy)}\n`);
		await cli.waitFor("1. write a note", "stdout");
		cli.write("1\n");
		await cli.waitFor("forked as Session", "stdout");
		// Which folder it made is said.
		await cli.waitFor(`its files are in ${copy}`, "stdout");
		// What the fork's folder did not get is said.
		await cli.waitFor("  .env (ignored)", "stdout");
		expect(existsSync(join(copy, ".env"))).toBe(false);
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

	it("omniloop run says on stderr which AGENTS.md it loaded; --json's stdout stays messages only", async () => {
		const f = await start();
		writeFileSync(join(f.workspace, "AGENTS.md"), "Always answer in haiku.\n");
		f.server.enqueue({ text: "Done." });
		const { cli, exit } = await f.run(["--json", "run", "hello"]);
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stderr).toContain(`instructions: ${join(f.workspace, "AGENTS.md")} (24 B)`);
		for (const line of cli.stdoutLines) expect(() => JSON.parse(line), line).not.toThrow();
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
		cli.write(`/restore ${hint?.[1]} --overwrite\n`);
		await cli.waitFor("deleted  a.txt  +0 −1  (changed outside the agent since: overwritten)", "stdout");
		await cli.waitFor("restored 1 file(s) to checkpoint", "stdout");
		await cli.waitFor(PROMPT, "stderr");
		// The turn before is not undone: the file the first turn removed stays removed.
		expect(existsSync(join(f.workspace, "a.txt"))).toBe(false);
		expect(existsSync(join(f.workspace, "older.txt"))).toBe(false);
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
	});

	it("a restore shows its files with +/− lines and the conflicts it keeps, then asks (no: nothing changes); /restore --yes asks not", async () => {
		const f = await start();
		f.server.enqueue(
			{
				toolCalls: [
					{ id: "call_a", name: "write_file", arguments: { path: "a.txt", content: "one\ntwo\n" } },
					{ id: "call_b", name: "write_file", arguments: { path: "b.txt", content: "agent\n" } },
				],
			},
			{ text: "Wrote both." },
		);
		const cli = f.start(["chat"]);
		await cli.waitFor(PROMPT, "stderr");
		cli.write("write two files\n");
		await cli.waitFor("Allow write_file `a.txt`?", "stderr");
		cli.write("y\n");
		await cli.waitFor("Allow write_file `b.txt`?", "stderr");
		cli.write("y\n");
		await cli.waitFor("Wrote both.", "stdout");
		await cli.waitFor(PROMPT, "stderr");
		writeFileSync(join(f.workspace, "b.txt"), "the person's\n");
		cli.write("/undo\n");
		await cli.waitFor(/restoring checkpoint \S+ changes 1 file\(s\):/, "stdout");
		await cli.waitFor("deleted  a.txt  +0 −2", "stdout");
		await cli.waitFor("kept, changed outside the agent since (--overwrite restores them too): 1 file(s):", "stdout");
		await cli.waitFor("deleted  b.txt  +0 −1", "stdout");
		await cli.waitFor("restore them? [y/N] ", "all");
		cli.write("n\n");
		await cli.waitFor("not restored: the files are as they were", "stdout");
		await cli.waitFor(PROMPT, "stderr");
		expect(readFileSync(join(f.workspace, "a.txt"), "utf8")).toBe("one\ntwo\n");
		cli.write("/undo\n");
		await cli.waitFor("restore them? [y/N] ", "all");
		cli.write("y\n");
		await cli.waitFor("restored 1 file(s) to checkpoint", "stdout");
		await cli.waitFor("kept, changed outside the agent: b.txt", "stdout");
		await cli.waitFor(PROMPT, "stderr");
		expect(existsSync(join(f.workspace, "a.txt"))).toBe(false);
		expect(readFileSync(join(f.workspace, "b.txt"), "utf8")).toBe("the person's\n");
		// The restore's own checkpoint brings a.txt back: previewed, not asked.
		const before = /undo it with \/restore (\S+)/.exec(cli.output.stdout)?.[1];
		expect(before, cli.transcript()).toBeDefined();
		cli.write(`/restore ${before} --yes\n`);
		await cli.waitFor("added    a.txt  +2 −0", "stdout");
		await cli.waitFor("restored 1 file(s) to checkpoint", "stdout");
		await cli.waitFor(PROMPT, "stderr");
		expect(readFileSync(join(f.workspace, "a.txt"), "utf8")).toBe("one\ntwo\n");
		expect(cli.output.all.match(/restore them\? \[y\/N\]/g)).toHaveLength(2);
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
	});
});

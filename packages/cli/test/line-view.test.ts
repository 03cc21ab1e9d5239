import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectInOrder, useFixtures } from "./cli-harness.js";

const start = useFixtures();

describe("the conversation as lines (a pipe, a log)", () => {
	it("a call refused by the approval policy is one line, not two; the model is told it was the policy", async () => {
		const f = await start({ agents: ["strict: { model: main, approval: { shell: deny } }"] });
		f.server.enqueue(
			{ toolCalls: [{ id: "call_rm", name: "shell", arguments: { command: "rm -rf build" } }] },
			{ text: "I may not run that." },
		);
		const { cli, exit } = await f.run(["--agent", "strict", "run", "clean up"]);
		expect(exit.code, cli.transcript()).toBe(0);
		// run's stdout is not a terminal here: the calls' lines are on stderr.
		const out = cli.output.stderr;
		expect(out.match(/✗/g), out).toHaveLength(1);
		expect(out).toContain("✗ refused by the approval policy");
		expect(cli.output.stderr).not.toContain("Allow shell");
		expect(f.requestBody(1)).toContain("refused by the approval policy");
	});

	it("parallel calls: an output that does not follow its call is labelled with it", async () => {
		const f = await start();
		writeFileSync(join(f.workspace, "a.txt"), "alpha\n");
		writeFileSync(join(f.workspace, "b.txt"), "beta\n");
		f.server.enqueue(
			{
				toolCalls: [
					{ id: "call_a", name: "read_file", arguments: { path: "a.txt" } },
					{ id: "call_b", name: "read_file", arguments: { path: "b.txt" } },
				],
			},
			{ text: "Both read." },
		);
		const { cli, exit } = await f.run(["run", "read both"]);
		expect(exit.code, cli.transcript()).toBe(0);
		// run's stdout is not a terminal here: the calls' lines are on stderr, the answer on stdout.
		const out = cli.output.stderr;
		// Each output comes right after its own call, or after a label naming that call.
		const lines = out.split("\n");
		const outputs: [string, string][] = [
			["a.txt", "alpha"],
			["b.txt", "beta"],
		];
		for (const [file, content] of outputs) {
			const at = lines.findIndex((line) => line.includes(content));
			expect(lines[at - 1], out).toMatch(new RegExp(`^(→|  ↳) read_file ${file.replace(".", "\\.")}$`));
		}
		expect(out, "one of the two outputs does not follow its call").toMatch(/↳ read_file [ab]\.txt/);
		expectInOrder(out, ["→ read_file a.txt", "→ read_file b.txt"]);
		expect(cli.output.stdout).toBe("Both read.\n");
	});

	it("an edit_file approval on a pipe shows the diff before the question", async () => {
		const f = await start();
		writeFileSync(join(f.workspace, "app.js"), "const port = 8080;\nlisten(port);\n");
		f.server.enqueue(
			{
				toolCalls: [
					{
						id: "call_e",
						name: "edit_file",
						arguments: { path: "app.js", old_string: "8080", new_string: "9090" },
					},
				],
			},
			{ text: "Done." },
		);
		const cli = f.start(["run", "use port 9090"]);
		await cli.waitFor("Allow edit_file `app.js`?", "stderr");
		expectInOrder(cli.output.stderr, ["app.js", "- const port = 8080;", "+ const port = 9090;", "Allow edit_file"]);
		cli.write("n\n");
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
	});

	it("run prints the Session id and the --resume command; a chat left without a message leaves no Session", async () => {
		const f = await start();
		f.server.enqueue({ text: "Hi." });
		const { cli, exit } = await f.run(["run", "say hi"]);
		expect(exit.code, cli.transcript()).toBe(0);
		const id = /Session ([0-9a-f-]{36}) · continue it with: omniloop --config-dir \S+ --resume \1/.exec(
			cli.output.stderr,
		)?.[1];
		expect(id, cli.output.stderr).toBeDefined();

		const empty = await f.run(["chat"]);
		expect(empty.exit.code, empty.cli.transcript()).toBe(0);
		expect(empty.cli.output.stderr).not.toContain("continue it with");
		const sessions = join(f.home, "sessions");
		expect(existsSync(sessions) ? readdirSync(sessions) : []).toEqual([id]);
	});
});

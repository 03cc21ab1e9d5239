import { describe, expect, it } from "vitest";
import { expectInOrder, useFixtures } from "./cli-harness.js";

const start = useFixtures();

describe("subagents at the terminal", () => {
	it("a subagent's messages are labelled with its agent; its approvals name it and are answered on stdin", async () => {
		const f = await start({ agents: ["researcher: { model: main, description: Finds facts in the folder. }"] });
		f.server.enqueue(
			{ toolCalls: [{ id: "call_sub", name: "agent__researcher", arguments: { task: "count the entries" } }] },
			{ toolCalls: [{ id: "call_ls", name: "shell", arguments: { command: "ls | wc -l" } }] },
			{ text: "There are 0 entries." },
			{ text: "The researcher counted 0 entries." },
		);
		const cli = f.start(["run", "how many entries?"]);
		await cli.waitFor("Allow researcher's shell `ls | wc -l`? [y]es / [n]o / [a]lways", "stderr");
		cli.write("y\n");
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
		// run's stdout is not a terminal here: the subagent's lines are on stderr, the answer alone on stdout.
		const out = cli.output.stderr;
		const order = [
			"→ agent__researcher count the entries",
			"  [researcher] → shell ls | wc -l",
			"  [researcher]   │ 0",
			"  [researcher] There are 0 entries.",
			"  [researcher] done · input",
			"  │ There are 0 entries.",
		];
		expectInOrder(out, order);
		expect(cli.output.stdout).toBe("The researcher counted 0 entries.\n");
	});
});

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { describe, expect, it } from "vitest";
import { type CliFixture, useFixtures } from "./cli-harness.js";

const start = useFixtures();

/** No omniloop.yaml and no provider key: the offline demo. */
async function demoFixture(): Promise<CliFixture> {
	const f = await start({ config: false });
	writeFileSync(join(f.workspace, "README.md"), "# Demo project\nA second line.\n");
	writeFileSync(join(f.workspace, "a.txt"), "a\n");
	return f;
}

const NOTICE = "No model is configured and no provider key is set";

describe("the offline demo", () => {
	it("says so plainly, then carries out a real tool-using Task: list, read README.md, wc -l after an approval; a (always) lets its wc -w run unasked", async () => {
		const f = await demoFixture();
		const cli = f.start(["run", "what is here?"]);
		await cli.waitFor(NOTICE, "stderr");
		await cli.waitFor("Starting the offline demo: a scripted model; no provider is called.", "stderr");
		await cli.waitFor("Allow shell `wc -l README.md`? [y]es / [n]o / [a]lways", "stderr");
		cli.write("a\n");
		const exit = await cli.waitForExit();
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stderr.match(/Allow shell/g)).toHaveLength(1);
		// run's stdout is not a terminal here: the answer is on stdout, the calls and usage on stderr.
		const out = cli.output.stdout;
		const err = cli.output.stderr;
		expect(out).toContain("(offline demo)");
		expect(err).toContain("→ list_dir .");
		expect(err).toContain("→ read_file README.md");
		expect(err).toContain("→ shell wc -l README.md");
		expect(err).toContain("→ shell wc -w README.md");
		expect(out).toContain(
			'this folder has 2 entries (README.md, a.txt). README.md begins with "# Demo project". It has 2 lines and 6 words',
		);
		expect(err).toMatch(/── done · input [1-9][\d,]* · cached [1-9][\d,]* · output \d+/);
		expect(f.server.requests).toHaveLength(0);
	});

	it("follows steering: a line sent while it works is repeated in its next reply; 'stop' ends the Task", async () => {
		const f = await demoFixture();
		const cli = f.start(["chat"]);
		await cli.waitFor("you> ", "stderr");
		cli.write("what is here?\n");
		await cli.waitFor("→ list_dir .", "stdout");
		cli.write("please stop now\n");
		await cli.waitFor("── done", "stdout");
		expect(cli.output.stdout).toContain('You said "please stop now", so I\'m stopping here.');
		expect(cli.output.stdout).not.toContain("→ shell");
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
	});

	it("--json: messages on stdout, the notice and the approval on stderr; a declined count is said", async () => {
		const f = await demoFixture();
		const cli = f.start(["--json", "run", "what is here?"]);
		await cli.waitFor("Allow shell `wc -l README.md`?", "stderr");
		cli.write("n\n");
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
		expect(cli.output.stderr).toContain(NOTICE);
		const messages = cli.stdoutLines.map((line) => JSON.parse(line) as OmniMessage);
		const answers = messages.flatMap((m) => (m.type === "assistant_text" ? [m.text] : []));
		expect(answers.at(-1)).toContain("(offline demo)");
		expect(answers.at(-1)).toContain("You declined the line count");
		expect(messages.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
	});

	it("a provider key in the environment means no demo", async () => {
		const f = await demoFixture();
		f.server.enqueue({ text: "A real answer." });
		const env = f.env({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${f.server.url}/v1` });
		const { cli, exit } = await f.run(["run", "hello"], env);
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stderr).not.toContain(NOTICE);
		expect(cli.output.stdout).toContain("A real answer.");
	});
});

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { describe, expect, it } from "vitest";
import { enterLine, PROMPT } from "./chat-prompt.js";
import { useFixtures } from "./cli-harness.js";

const start = useFixtures();

describe("omniloop chat", () => {
	it("a line typed while a Task runs is steering: it reaches the model as [user_steering] in the next request", async () => {
		const f = await start();
		// The tool waits for a file the test writes once the steering is queued: no race with the turn's end.
		const gate = "while [ ! -f go ]; do sleep 0.02; done; echo gate open";
		f.server.enqueue(
			{ toolCalls: [{ id: "call_gate", name: "shell", arguments: { command: gate } }] },
			{ text: "Checked the tests too." },
		);
		const cli = f.start(["--yes", "chat"]);
		await cli.waitFor(PROMPT, "stderr");
		cli.write("start the work\n");
		await cli.waitFor("→ shell while [ ! -f go ]", "stdout");
		cli.write("also check the tests\n");
		await cli.waitFor("↳ steering: the model sees this at its next turn", "stderr");
		writeFileSync(join(f.workspace, "go"), "");
		await cli.waitFor("Checked the tests too.", "stdout");
		await cli.waitFor(PROMPT, "stderr");
		expect(f.requestBody(1)).toContain("[user_steering]also check the tests[/user_steering]");
		expect(f.requestBody(1)).toContain("gate open");
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
	});

	it("SIGINT during a running tool ends the Task user_abort and keeps the chat; the next Task carries the carry-over; a second SIGINT at the prompt exits", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [{ id: "call_slow", name: "shell", arguments: { command: "sleep 20" } }] },
			{ text: "Picking up where we stopped." },
		);
		const cli = f.start(["--yes", "--json", "chat"]);
		await cli.waitFor(PROMPT, "stderr");
		cli.write("run the slow thing\n");
		await cli.waitFor(/"type":"tool_start"[^\n]*"callId":"call_slow"/, "stdout");
		cli.signal("SIGINT");
		await cli.waitFor(/"type":"done"[^\n]*"reason":"user_abort"/, "stdout");
		await cli.waitFor("interrupted — the next message continues from here; Ctrl-C again to exit", "stderr");
		await cli.waitFor(PROMPT, "stderr");
		expect(cli.alive).toBe(true);

		cli.write("go on\n");
		await cli.waitFor(/"type":"done"[^\n]*"reason":"model_stop"/, "stdout");
		expect(f.requestBody(1)).toContain("[interrupted: tool aborted by user]");
		expect(f.requestBody(1)).toContain("call_slow");
		expect(f.server.requestsWithUnpairedCalls).toEqual([]);

		await cli.waitFor(PROMPT, "stderr");
		cli.signal("SIGINT");
		const exit = await cli.waitForExit();
		expect(exit.code, cli.transcript()).toBe(130);
		// --json: stdout held nothing but messages.
		const messages = cli.stdoutLines.map((line) => JSON.parse(line) as OmniMessage);
		expect(messages.filter((m) => m.type === "done").map((m) => m.type === "done" && m.reason)).toEqual([
			"user_abort",
			"model_stop",
		]);
		// The model's output was complete when the tool was stopped: carry-over case A.
		expect(messages.find((m) => m.type === "abort")).toMatchObject({ carryOver: "A" });
	});

	it("/title writes and saves a title, /usage and /sessions print, /compact streams its events, /exit leaves", async () => {
		const f = await start();
		f.server.enqueue(
			{
				text: `Here is a long answer. ${"The build is broken because of a typo in the config. ".repeat(8)}`,
				usage: { input: 40, output: 90 },
			},
			{ text: "Fixing the broken build" },
			{
				text: "[summary]The user asked why the build breaks: a typo in the config.[/summary]",
				usage: { input: 150, output: 20 },
			},
		);
		const cli = f.start(["chat"]);
		await cli.waitFor(PROMPT, "stderr");
		await enterLine(cli, "why does the build break?", "── done");
		await enterLine(cli, "/title", "title: Fixing the broken build");
		await enterLine(cli, "/usage", /Session [0-9a-f-]{36}: input 40 · cached 0 · output 90 · total 130 tokens/);
		cli.write("/sessions\n");
		await cli.waitFor(
			/[0-9a-f-]{36} +\S+ \S+ +default_agent\/openai-compatible:fake-model +\S+ +130 +Fixing the broken build\n/,
			"stdout",
		);
		await cli.waitFor(PROMPT, "stderr");
		cli.write("/compact\n");
		await cli.waitFor("⋯ compacting the conversation (manual, summarize)…", "stdout");
		await cli.waitFor("⋯ compacted: the conversation goes on from here in a fresh context", "stdout");
		await cli.waitFor("The user asked why the build breaks: a typo in the config.", "stdout");
		await cli.waitFor(PROMPT, "stderr");
		await enterLine(cli, "/usage", /Session [0-9a-f-]{36}: input 190 · cached 0 · output 110 · total 300 tokens/);
		cli.write("/nonsense\n");
		await cli.waitFor("unknown command /nonsense; /help lists the commands", "stderr");
		cli.write("/exit\n");
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
		expect(f.requestBody(2)).toContain("Do not call any tool");
	});

	it("omniloop.yaml broken while the chat runs: /new says why and the chat goes on in its Session", async () => {
		const f = await start();
		f.server.enqueue({ text: "First." }, { text: "Still here." });
		const cli = f.start(["chat"]);
		await cli.waitFor(PROMPT, "stderr");
		await enterLine(cli, "hello", "── done");
		writeFileSync(
			join(f.configDir, "omniloop.yaml"),
			"models:\n  main: { provider: openai-compatible, model: fake-model, baseURL: http://127.0.0.1:9/v1 }\nagents:\n  default_agent: { model: mian }\n",
		);
		cli.write("/new\n");
		await cli.waitFor('agents.default_agent.model: "mian" is not a model defined under models (main)', "stderr");
		await cli.waitFor(PROMPT, "stderr");
		// The chat is where it was: its Session takes the next message (its model was read when it loaded).
		await enterLine(cli, "are you there?", "── done");
		expect(cli.output.stdout).toContain("Still here.");
		cli.write("/exit\n");
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
	});

	it("piped lines with a message argument: the argument is the first Task, then one Task per piped line", async () => {
		const f = await start();
		f.server.enqueue({ text: "One." }, { text: "Two." }, { text: "Three." });
		const cli = f.start(["the instruction"]);
		// Written at once: the lines are read while the conversation starts.
		cli.write("line A\nline B\n");
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
		const lastUser = (n: number) => {
			const messages = (JSON.parse(f.requestBody(n)) as { messages: { role: string; content: unknown }[] }).messages;
			return messages.filter((m) => m.role === "user").at(-1)?.content;
		};
		expect([0, 1, 2].map(lastUser)).toEqual(["the instruction", "line A", "line B"]);
	});

	it("end of input exits once the running Task has ended", async () => {
		const f = await start();
		f.server.enqueue({ text: ["Hello ", "there."], chunkDelayMs: 20 });
		const cli = f.start(["chat"]);
		cli.write("hi\n");
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
		expect(cli.output.stdout).toContain("Hello there.");
		expect(cli.output.stdout).toContain("── done");
	});
});

import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { describe, expect, it } from "vitest";
import { CLI_MAIN, type CliFixture, useFixtures } from "./cli-harness.js";

const start = useFixtures();

/** A Task that reads a file of the workspace and answers from it. */
function readingTask(f: CliFixture): void {
	writeFileSync(join(f.workspace, "hello.txt"), "first line of hello\nsecond line\n");
	f.server.enqueue(
		{
			text: "Let me look.",
			toolCalls: [{ id: "call_read_1", name: "read_file", arguments: { path: "hello.txt" } }],
			usage: { input: 20, output: 4 },
		},
		{ text: ["The file ", "says hello."], usage: { input: 30, output: 6 } },
	);
}

/** A second model in the fixture's omniloop.yaml, `alt` (the provider's model id `alt-model`), beside `main`. */
function addAltModel(f: CliFixture): void {
	const yaml = join(f.configDir, "omniloop.yaml");
	const main = /^ {2}main: .*$/m.exec(readFileSync(yaml, "utf8"))?.[0] as string;
	writeFileSync(
		yaml,
		readFileSync(yaml, "utf8").replace(
			"agents:",
			`${main.replace("main:", "alt:").replace("fake-model", "alt-model")}\nagents:`,
		),
	);
}

describe("omniloop run", () => {
	it("completes a tool-using Task in the current folder: streamed text, the call, its output, usage; exit 0", async () => {
		const f = await start();
		readingTask(f);
		const { cli, exit } = await f.run(["run", "what", "does", "hello.txt", "say?"]);
		expect(exit.code, cli.transcript()).toBe(0);
		// stdout is not a terminal: it holds the answer alone; the call, its output and the usage are on stderr.
		expect(cli.output.stdout).toBe("Let me look.\nThe file says hello.\n");
		const err = cli.output.stderr;
		expect(err).toContain("→ read_file hello.txt");
		expect(err).toMatch(/│ +1 {2}first line of hello/);
		expect(err).toContain("── done · input 50 · cached 0 · output 10 · total 60 tokens");
		// The prompt (the words joined) reached the model, and the real file content went back to it.
		expect(f.requestBody(0)).toContain("what does hello.txt say?");
		expect(f.requestBody(1)).toContain("first line of hello");
	});

	it("a checkpoint's line does not offer /undo, a chat's command that run has not", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "note.txt", content: "hi\n" } }] },
			{ text: "Wrote it." },
		);
		const { cli, exit } = await f.run(["--yes", "run", "write a note"]);
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stderr).toMatch(/⋯ checkpoint \w+ \(turn\)\n/);
		expect(cli.transcript()).not.toContain("/undo");
	});

	it("stdout and stderr on one file (2>&1, or a tee with stderr on the terminal): the answer's line ends before the call's", async () => {
		const f = await start();
		readingTask(f);
		const file = join(f.workspace, "..", `both-${process.pid}.txt`);
		const fd = openSync(file, "w");
		try {
			const child = spawn(process.execPath, [CLI_MAIN, "--config-dir", f.configDir, "run", "read hello.txt"], {
				cwd: f.workspace,
				env: f.env(),
				stdio: ["ignore", fd, fd],
			});
			const [code] = (await once(child, "exit")) as [number];
			expect(code).toBe(0);
		} finally {
			closeSync(fd);
		}
		const both = readFileSync(file, "utf8");
		rmSync(file);
		expect(both).toContain("Let me look.\n");
		expect(both).not.toMatch(/Let me look\.\S/);
	});

	it("--json prints one OmniMessage a line on stdout and nothing else; the last is done", async () => {
		const f = await start();
		readingTask(f);
		const { cli, exit } = await f.run(["--json", "run", "what does hello.txt say?"]);
		expect(exit.code, cli.transcript()).toBe(0);
		const messages = cli.stdoutLines.map((line) => JSON.parse(line) as OmniMessage);
		for (const message of messages) {
			expect(typeof message.type).toBe("string");
			expect(typeof message.id).toBe("string");
			expect(typeof message.seq).toBe("number");
		}
		expect(messages.at(-1)).toMatchObject({ type: "done", reason: "model_stop", usage: { total: 60 } });
		expect(messages.filter((m) => m.type === "done")).toHaveLength(1);
		expect(messages.find((m) => m.type === "tool_call_output")).toMatchObject({ name: "read_file", status: "ok" });
		expect(messages.some((m) => m.type === "partial_text")).toBe(true);
	});

	it("--resume with --model runs the Session on that model; without it, on the model it was made with", async () => {
		const f = await start();
		addAltModel(f);
		f.server.enqueue({ text: "On main." }, { text: "On alt." }, { text: "Main again." });
		const first = await f.run(["run", "one"]);
		const id = /Session ([0-9a-f-]{36})/.exec(first.cli.output.stderr)?.[1] as string;
		const alt = await f.run(["--resume", id, "--model", "alt", "run", "two"]);
		expect(alt.exit.code, alt.cli.transcript()).toBe(0);
		const back = await f.run(["--resume", id, "run", "three"]);
		expect(back.exit.code, back.cli.transcript()).toBe(0);
		expect([0, 1, 2].map((i) => (JSON.parse(f.requestBody(i)) as { model: string }).model)).toEqual([
			"fake-model",
			"alt-model",
			"fake-model",
		]);
	});

	it("/model in a chat is kept for the Session: a later --resume without --model goes on with it", async () => {
		const f = await start();
		addAltModel(f);
		f.server.enqueue({ text: "On main." }, { text: "On alt." }, { text: "Still alt." });
		const first = await f.run(["run", "one"]);
		const id = /Session ([0-9a-f-]{36})/.exec(first.cli.output.stderr)?.[1] as string;
		const chat = f.start(["--resume", id, "chat"]);
		chat.write("/model alt\ntwo\n");
		chat.endInput();
		expect((await chat.waitForExit()).code, chat.transcript()).toBe(0);
		const later = await f.run(["--resume", id, "run", "three"]);
		expect(later.exit.code, later.cli.transcript()).toBe(0);
		expect([0, 1, 2].map((i) => (JSON.parse(f.requestBody(i)) as { model: string }).model)).toEqual([
			"fake-model",
			"alt-model",
			"alt-model",
		]);
	});

	it("an auth failure (401) names the credential to set; exit 1", async () => {
		const f = await start();
		f.server.enqueue({ fault: { kind: "status", status: 401, message: "Incorrect API key provided" } });
		const { cli, exit } = await f.run(["run", "hello"]);
		expect(exit.code, cli.transcript()).toBe(1);
		expect(cli.output.all).toMatch(
			/authentication failed \(HTTP 401[^)]*\)\. Set FAKE_KEY to a valid key \(models\.main\.apiKey in .*omniloop\.yaml reads it\)/,
		);
		expect(f.server.requests).toHaveLength(1);
	});

	it("the key-only default model's auth failure names its provider variable", async () => {
		const f = await start({ config: false, provider: "openai" });
		// No omniloop.yaml: the default model of OPENAI_API_KEY, pointed at the fake server.
		f.server.enqueue({ fault: { kind: "status", status: 401 } });
		const env = f.env({ OPENAI_API_KEY: "sk-wrong", OPENAI_BASE_URL: `${f.server.url}/v1` });
		const { cli, exit } = await f.run(["run", "hello"], env);
		expect(exit.code, cli.transcript()).toBe(1);
		expect(cli.output.all).toContain("Set OPENAI_API_KEY to a valid key (the default model reads it)");
	});

	it("a 503 shows the reconnect countdown, then the Task completes", async () => {
		const f = await start();
		f.server.enqueue({ fault: { kind: "status", status: 503 } }, { text: "recovered" });
		const { cli, exit } = await f.run(["run", "hello"]);
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stderr).toMatch(/connection problem \(HTTP 503[^)]*\); retrying in 10 ms \(attempt 1 of 5\)/);
		expect(cli.output.stdout).toBe("recovered\n");
		expect(f.server.requests).toHaveLength(2);
	});

	it("the exit code follows the done reason: max_turns is 3", async () => {
		const f = await start({ systemConfig: ["maxTurns: 1"] });
		f.server.enqueue({ toolCalls: [{ id: "call_ls", name: "list_dir", arguments: {} }] });
		const { cli, exit } = await f.run(["run", "list it"]);
		expect(exit.code, cli.transcript()).toBe(3);
		expect(cli.output.stderr).toContain("stopped: the turn limit (maxTurns) was reached");
		expect(cli.output.stdout).toBe("");
	});

	it("bad usage exits 2 with a message: an unknown option value, a missing task, an unknown agent", async () => {
		const f = await start();
		const thinking = await f.run(["--thinking", "lots", "run", "x"]);
		expect(thinking.exit.code).toBe(2);
		expect(thinking.cli.output.stderr).toContain("expected one of off, minimal, low, medium, high, xhigh");
		const missing = await f.run(["run"]);
		expect(missing.exit.code).toBe(2);
		expect(missing.cli.output.stderr).toContain("missing required argument");
		const agent = await f.run(["--agent", "nobody", "run", "x"]);
		expect(agent.exit.code).toBe(2);
		// Said in the command's words (the option), not the SDK's (createAgent).
		expect(agent.cli.output.stderr).toMatch(
			/^omniloop: --agent nobody: \S+omniloop\.yaml defines no agent "nobody" \(agents: default_agent\b[^)]*\)$/m,
		);
		expect(agent.cli.output.stderr).not.toContain("createAgent");
		// Without --agent: the default one, and what to do.
		const yaml = join(f.configDir, "omniloop.yaml");
		writeFileSync(yaml, readFileSync(yaml, "utf8").replace(/^ {2}default_agent:/m, "  coder:"));
		const unnamed = await f.run(["run", "x"]);
		expect(unnamed.exit.code).toBe(2);
		expect(unnamed.cli.output.stderr).toContain(
			'defines no agent "default_agent" (agents: coder), the agent that runs without --agent; name one with --agent, or define default_agent',
		);
		expect(f.server.requests).toHaveLength(0);
	});
});

describe("omniloop run against a model server it cannot reach", () => {
	it("the error names the URL tried, without its query (a key may be there), and the run fails at once on a bad port", async () => {
		const f = await start();
		writeFileSync(
			join(f.configDir, "omniloop.yaml"),
			[
				"models:",
				'  main: { provider: openai-compatible, model: m, baseURL: "http://127.0.0.1:6000/v1?key=sk-query-secret", apiKey: x }',
				"agents:",
				"  default_agent: { model: main }",
			].join("\n"),
		);
		const { cli, exit } = await f.run(["run", "--local", "hello"]);
		expect(exit.code, cli.transcript()).not.toBe(0);
		expect(cli.output.stdout + cli.output.stderr).toContain(
			`cannot connect to http://127.0.0.1:6000/v1 (model \`main\` in ${join(f.configDir, "omniloop.yaml")}): its port is one fetch refuses`,
		);
		expect(cli.transcript()).not.toContain("sk-query-secret");
	});
});

describe("Ctrl-C in omniloop run", () => {
	it("SIGINT during a running tool aborts the Task: done user_abort, exit 130", async () => {
		const f = await start();
		f.server.enqueue({ toolCalls: [{ id: "call_slow", name: "shell", arguments: { command: "sleep 20" } }] });
		const cli = f.start(["--yes", "--json", "run", "wait a while"]);
		await cli.waitFor(/"type":"tool_start"/, "stdout");
		cli.signal("SIGINT");
		const exit = await cli.waitForExit();
		expect(exit.code, cli.transcript()).toBe(130);
		expect(cli.output.stderr).toContain("interrupted — stopping the Task; Ctrl-C again to exit at once");
		expect(JSON.parse(cli.stdoutLines.at(-1) ?? "{}")).toMatchObject({ type: "done", reason: "user_abort" });
	});
});

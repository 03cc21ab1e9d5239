import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelYaml } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { useFixtures } from "./cli-harness.js";

const start = useFixtures();

describe("careless input gets a clear error on stderr", () => {
	it("a --config-dir that does not exist", async () => {
		const f = await start();
		const missing = join(f.workspace, "no-such-dir");
		const { cli, exit } = await f.run(["--config-dir", missing, "run", "hi"]);
		expect(exit.code).toBe(2);
		expect(cli.output.stderr).toContain(`--config-dir ${missing} does not exist`);
		expect(cli.output.stdout).toBe("");
	});

	it("--model gpt-4o without an omniloop.yaml suggests openai:gpt-4o", async () => {
		const f = await start({ config: false });
		const { cli, exit } = await f.run(["--model", "gpt-4o", "run", "hi"]);
		expect(exit.code).toBe(2);
		expect(cli.output.stderr).toContain("--model gpt-4o: there is no omniloop.yaml in");
		expect(cli.output.stderr).toContain("pass --model openai:gpt-4o (its key is read from OPENAI_API_KEY)");
	});

	it("an unknown --agent with no omniloop.yaml is an error, not the offline demo", async () => {
		const f = await start({ config: false });
		const { cli, exit } = await f.run(["--agent", "reviewer", "run", "hi"]);
		expect(exit.code).toBe(2);
		expect(cli.output.stderr).toContain("--agent reviewer: there is no omniloop.yaml in");
		expect(cli.output.stderr).not.toContain("offline demo");
	});

	it('apiKey: "$VAR" (no braces) is warned about, naming the file, the key and the fix', async () => {
		const f = await start();
		writeFileSync(join(f.configDir, "omniloop.yaml"), fakeModelYaml(`${f.server.url}/v1`, { apiKey: "$FAKE_KEY" }));
		f.server.enqueue({ text: "Fine." });
		const { cli } = await f.run(["run", "hi"]);
		expect(cli.output.stderr).toContain(
			'omniloop.yaml: models.main.apiKey holds "$FAKE_KEY", which is used as written, not read from the environment; to read the environment variable write "${FAKE_KEY}"',
		);
	});

	it("serve --workspace-root naming no folder, and workflows list --status naming no status, are usage errors (exit 2) naming the option", async () => {
		const f = await start();
		const missing = join(f.home, "no-such-folder");
		const serve = await f.run(["serve", "--port", "0", "--workspace-root", missing]);
		expect(serve.exit.code, serve.cli.transcript()).toBe(2);
		expect(serve.cli.output.stderr).toContain("--workspace-root");
		expect(serve.cli.output.stderr).toContain(`there is no ${missing}`);
		const list = await f.run(["workflows", "list", "--status", "bogus"]);
		expect(list.exit.code, list.cli.transcript()).toBe(2);
		expect(list.cli.output.stderr).toMatch(/--status.*bogus[\s\S]*waiting_approval/);
	});

	it("a credential with a $ in it is warned about without being shown", async () => {
		const f = await start();
		writeFileSync(
			join(f.configDir, "omniloop.yaml"),
			fakeModelYaml(`${f.server.url}/v1`, { apiKey: "sk-abc$Secret99xyz" }),
		);
		f.server.enqueue({ text: "Fine." });
		const { cli } = await f.run(["run", "hi"]);
		expect(cli.output.stderr).toContain(
			'models.main.apiKey has a "$" followed by a name in it, which is used as written',
		);
		expect(cli.transcript()).not.toContain("sk-abc");
		expect(cli.transcript()).not.toContain("Secret99xyz");
	});

	it('omniloop "some task" starts a conversation with it; a word close to a command is a typo', async () => {
		const f = await start();
		f.server.enqueue({ text: "Here is what this project does." });
		const { cli, exit } = await f.run(["what does this project do?"]);
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stdout).toContain("Here is what this project does.");
		expect(f.requestBody(0)).toContain("what does this project do?");

		const typo = await f.run(["sesions"]);
		expect(typo.exit.code).toBe(2);
		expect(typo.cli.output.stderr).toContain('unknown command "sesions"; did you mean `omniloop sessions`?');
	});

	it("--resume from another folder runs in the Session's own folder; a Session whose folder is gone says so", async () => {
		const f = await start();
		writeFileSync(join(f.workspace, "marker.txt"), "here\n");
		f.server.enqueue(
			{ text: "First." },
			{ toolCalls: [{ id: "call_ls", name: "list_dir", arguments: {} }] },
			{ text: "Listed." },
		);
		const first = await f.run(["run", "hello"]);
		const id = /Session ([0-9a-f-]{36})/.exec(first.cli.output.stderr)?.[1] as string;
		const elsewhere = join(f.home, "elsewhere");
		mkdirSync(elsewhere);
		const cli = f.startIn(elsewhere, ["--resume", id, "run", "what is here?"]);
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
		expect(cli.output.stderr).toContain(`Resuming in the Session's folder ${f.workspace}`);
		expect(f.requestBody(2)).toContain("marker.txt");

		const gone = join(f.home, "gone");
		mkdirSync(gone);
		f.server.enqueue({ text: "In a folder about to go." });
		const doomed = f.startIn(gone, ["--config-dir", f.configDir, "run", "hi"]);
		doomed.endInput();
		await doomed.waitForExit();
		const goneId = /Session ([0-9a-f-]{36})/.exec(doomed.output.stderr)?.[1] as string;
		rmSync(gone, { recursive: true });
		const resumed = await f.run(["--resume", goneId, "run", "still there?"]);
		expect(resumed.exit.code).toBe(2);
		expect(resumed.cli.output.stderr).toContain(`Session ${goneId} worked in ${gone}, which no longer exists`);
	});
});

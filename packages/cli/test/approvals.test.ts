import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useFixtures } from "./cli-harness.js";

const start = useFixtures();

const shellCall = (id: string, command: string) => ({ id, name: "shell", arguments: { command } });
const QUESTION = "[y]es / [n]o / [a]lways for this tool in this Session";

describe("approvals on stdin", () => {
	it("a shell call asks; n denies it, and the model's next request carries the denial", async () => {
		const f = await start();
		f.server.enqueue({ toolCalls: [shellCall("call_sh_1", "echo hi > touched.txt")] }, { text: "Understood." });
		const cli = f.start(["run", "touch a file"]);
		await cli.waitFor(`Allow shell \`echo hi > touched.txt\`? ${QUESTION}`, "stderr");
		cli.write("n\n");
		const exit = await cli.waitForExit();
		expect(exit.code, cli.transcript()).toBe(0);
		// run's stdout is not a terminal here: the call's lines are on stderr, the answer alone on stdout.
		expect(cli.output.stderr).toContain("✗ denied");
		expect(cli.output.stdout).toBe("Understood.\n");
		expect(f.requestBody(1)).toContain("Tool call denied by user.");
		expect(existsSync(join(f.workspace, "touched.txt"))).toBe(false);
	});

	it("a (always) allows this call and the next call of the same tool without asking", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [shellCall("call_sh_1", "echo one")] },
			{ toolCalls: [shellCall("call_sh_2", "echo two")] },
			{ text: "Both ran." },
		);
		const cli = f.start(["run", "echo twice"]);
		await cli.waitFor(`Allow shell \`echo one\`? ${QUESTION}`, "stderr");
		cli.write("a\n");
		await cli.waitFor("Both ran.", "stdout");
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
		expect(cli.output.stderr.match(/Allow shell/g)).toHaveLength(1);
		expect(f.requestBody(1)).toMatch(/one\\n\[exit code 0\]/);
		expect(f.requestBody(2)).toMatch(/two\\n\[exit code 0\]/);
		// The Trace says nobody was asked about the second call: the grant decided it.
		const id = /Session ([0-9a-f-]{36})/.exec(cli.output.stderr)?.[1] as string;
		const traced = readFileSync(join(f.home, "sessions", id, "trace.jsonl"), "utf8")
			.split("\n")
			.filter((line) => line.includes('"approval_decision"') || line.includes('"confirmation_required"'))
			.map((line) => JSON.parse(line) as { type: string; callId: string; by?: string });
		expect(traced.map((m) => `${m.type}:${m.callId}:${m.by ?? ""}`)).toEqual([
			"confirmation_required:call_sh_1:",
			"approval_decision:call_sh_1:user",
			"approval_decision:call_sh_2:always",
		]);
	});

	it("a (always) survives --resume: the resumed Session runs that tool without asking", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [shellCall("call_sh_1", "echo one")] },
			{ text: "Ran it." },
			{ toolCalls: [shellCall("call_sh_2", "echo again")] },
			{ text: "Ran it again." },
		);
		const first = f.start(["run", "echo once"]);
		await first.waitFor(`Allow shell \`echo one\`? ${QUESTION}`, "stderr");
		first.write("a\n");
		expect((await first.waitForExit()).code, first.transcript()).toBe(0);
		const id = /Session ([0-9a-f-]{36})/.exec(first.output.stderr)?.[1] as string;

		const { cli, exit } = await f.run(["--resume", id, "run", "echo again"]);
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stderr).not.toContain("Allow shell");
		expect(f.requestBody(3)).toMatch(/again\\n\[exit code 0\]/);
	});

	it("y allows a write_file call, which writes the file; an unclear answer is asked again", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "note.txt", content: "written\n" } }] },
			{ text: "Wrote it." },
		);
		const cli = f.start(["run", "write a note"]);
		await cli.waitFor(`Allow write_file \`note.txt\`? ${QUESTION}`, "stderr");
		cli.write("maybe\n");
		await cli.waitFor("Please answer y (yes), n (no) or a (always", "stderr");
		await cli.waitFor("Allow write_file", "stderr");
		cli.write("y\n");
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
		expect(readFileSync(join(f.workspace, "note.txt"), "utf8")).toBe("written\n");
	});

	it("with stdin at its end nobody can answer: the call is denied and the Task goes on", async () => {
		const f = await start();
		f.server.enqueue({ toolCalls: [shellCall("call_sh_1", "echo hi")] }, { text: "Fine." });
		const { cli, exit } = await f.run(["run", "say hi"]);
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stderr).toContain("no answer (input ended): shell denied");
		expect(f.requestBody(1)).toContain("Tool call denied by user.");
	});

	it("a chat over a pipe reads its lines in order: the line after a message answers that message's approval", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "note.txt", content: "piped\n" } }] },
			{ text: "Wrote it." },
		);
		const cli = f.start(["chat"]);
		cli.write("write a note\ny\n");
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
		expect(readFileSync(join(f.workspace, "note.txt"), "utf8")).toBe("piped\n");
		expect(cli.output.stderr).not.toContain("no answer");
		// The answer was not sent to the model as a message of its own.
		expect(f.server.requests).toHaveLength(2);
	});

	it("--yes allows every call without asking", async () => {
		const f = await start();
		f.server.enqueue({ toolCalls: [shellCall("call_sh_1", "echo yes-ran")] }, { text: "Done." });
		const { cli, exit } = await f.run(["--yes", "run", "go"]);
		expect(exit.code, cli.transcript()).toBe(0);
		expect(cli.output.stderr).not.toContain("Allow shell");
		expect(f.requestBody(1)).toContain("yes-ran");
	});
});

describe("approvals where the shell's sandbox is unavailable (docs/sandbox.md)", () => {
	it("the CLI says so at start, and --yes still asks about a shell call, saying it would run unsandboxed", async () => {
		const f = await start();
		f.server.enqueue({ toolCalls: [shellCall("call_sh_1", "echo hi > touched.txt")] }, { text: "Understood." });
		const env = f.env({ OMNILOOP_BWRAP: join(f.workspace, "no-bwrap") });
		const cli = f.start(["--yes", "run", "touch a file"], env);
		await cli.waitFor(`Allow shell \`echo hi > touched.txt\`? ${QUESTION}`, "stderr");
		expect(cli.output.stderr).toContain(
			"The shell's sandbox (workspace-write) is not available: bubblewrap is not installed",
		);
		expect(cli.output.stderr).toMatch(
			/the workspace-write sandbox is not available here \(.*\): the command would run unsandboxed.*; --yes and "always" do not apply/,
		);
		cli.write("n\n");
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
		expect(existsSync(join(f.workspace, "touched.txt"))).toBe(false);
	});
});

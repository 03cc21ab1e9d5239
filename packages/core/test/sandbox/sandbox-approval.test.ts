import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { callTool, say } from "../../src/model/scripted.js";
import type { ApproveOptions } from "../../src/tools/tool.js";
import { cleanup, harness, ofType, runText, tempDir } from "../harness.js";

afterEach(cleanup);

/** bubblewrap pointed at a binary that does not exist: a machine without the sandbox. */
function withoutSandbox(): NodeJS.ProcessEnv {
	return { ...process.env, OMNILOOP_BWRAP: join(tempDir(), "no-bwrap") };
}

const echoCall = callTool("shell", { command: "echo ran > ran.txt; echo ran" }, "s1");

describe("where the sandbox is unavailable, a shell call needs a person (docs/sandbox.md)", () => {
	it("a policy that allows the shell asks anyway, and the question says the command would run unsandboxed", async () => {
		const { session } = await harness([[echoCall], [say("done")]], {
			builtins: true,
			approval: { shell: "allow" },
			env: withoutSandbox(),
		});
		expect(session.sandbox).toMatchObject({ mode: "workspace-write", available: false });
		const asked: ApproveOptions[] = [];
		const out = await runText(session, "go", {
			approve: async (_call, options) => {
				asked.push(options);
				return "allow";
			},
		});
		const [required] = ofType(out, "confirmation_required");
		expect(required?.unsandboxed).toMatch(
			/^the workspace-write sandbox is not available here \(bubblewrap is not installed/,
		);
		expect(asked.map((options) => options.unsandboxed)).toEqual([required?.unsandboxed]);
		expect(ofType(out, "approval_decision")).toMatchObject([{ by: "user", decision: "allow" }]);
		expect(ofType(out, "tool_call_output")).toMatchObject([{ output: "ran\n[exit code 0]", status: "ok" }]);
	});

	it("with nobody to ask, the call is denied, and the output says why", async () => {
		const { session, workspace } = await harness([[echoCall], [say("done")]], {
			builtins: true,
			approval: { "*": "allow" },
			env: withoutSandbox(),
		});
		const out = await runText(session, "go");
		const [output] = ofType(out, "tool_call_output");
		expect(output?.status).toBe("denied");
		expect(output?.output).toMatch(
			/^Tool call refused: shell needs a person's approval, and no one can be asked in this run: the workspace-write sandbox is not available here/,
		);
		expect(ofType(out, "approval_decision")).toMatchObject([{ by: "policy", decision: "deny" }]);
		expect(existsSync(join(workspace, "ran.txt"))).toBe(false);
	});

	it("sandbox: off is the person's own choice: the policy decides as usual", async () => {
		const { session } = await harness([[echoCall], [say("done")]], {
			builtins: true,
			approval: { shell: "allow" },
			sandbox: "off",
			env: withoutSandbox(),
		});
		expect(session.sandbox).toEqual({ mode: "off", available: true });
		const out = await runText(session, "go");
		expect(ofType(out, "confirmation_required")).toEqual([]);
		expect(ofType(out, "tool_call_output")).toMatchObject([{ output: "ran\n[exit code 0]", status: "ok" }]);
	});
});

describe("a Session's shell, sandboxed", () => {
	it("runs without asking when the policy allows it, and its commands see no credentials of the host's", async () => {
		const command = 'echo "token=$OMNILOOP_TOKEN key=$ANTHROPIC_API_KEY gh=$GITHUB_TOKEN path=${PATH:+set}"';
		// In the process's own environment, as a server's token and keys are: what a command used to inherit.
		const secrets = { OMNILOOP_TOKEN: "tok-1", ANTHROPIC_API_KEY: "sk-2", GITHUB_TOKEN: "gh-3" };
		Object.assign(process.env, secrets);
		onTestFinished(() => {
			for (const name of Object.keys(secrets)) delete process.env[name];
		});
		const { session } = await harness([[callTool("shell", { command }, "s1")], [say("done")]], {
			builtins: true,
			approval: { shell: "allow" },
		});
		expect(session.sandbox).toEqual({ mode: "workspace-write", available: true });
		const out = await runText(session, "go");
		expect(ofType(out, "confirmation_required")).toEqual([]);
		expect(ofType(out, "tool_call_output")).toMatchObject([
			{ output: "token= key= gh= path=set\n[exit code 0]", status: "ok" },
		]);
	});
});

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callTool, ScriptedModel, say } from "../../src/model/scripted.js";
import { sessionDir, traceFileName } from "../../src/trace/trace-files.js";
import { cleanup, echoTool, harness, ofType, runText, strictAgent, tempDir } from "../harness.js";

/**
 * The gaps a review found in "credential values never reach a Trace, a tool or a response"
 * (docs/protocol.md), each as a Session meets it.
 */

afterEach(cleanup);

/** The whole text of a Session's first Trace file, as it lies on the disk. */
const traceText = (home: string, sessionId: string) =>
	readFileSync(join(sessionDir(home, sessionId), traceFileName(1)), "utf8");

describe("a generated title", () => {
	const KEY = "sk-acme-LIVE-0123456789abcdef";

	it("is redacted: the model writes it from a context that holds the key as the person typed it", async () => {
		const { session } = await harness([[say("Let me look.")], [say(`Why does ${KEY} fail?`)]], {
			env: { ...process.env, ACME_API_KEY: KEY },
		});
		await runText(session, `why does ${KEY} fail?`);
		expect(await session.generateTitle()).toBe("Why does [redacted] fail?");
	});

	it("is redacted before it is cut to length, so no piece of a key is left at the cut", async () => {
		const long = `${"Debugging the failing request ".repeat(2)}with ${KEY} in it`;
		const { session } = await harness([[say("ok")], [say(long)]], { secrets: () => [KEY] });
		await runText(session, "hello");
		const title = await session.generateTitle();
		expect(title).not.toContain("sk-acme");
		expect(title.endsWith("…")).toBe(true);
	});
});

describe("a credential value with characters JSON escapes, in a tool call's arguments", () => {
	const PASSWORD = 'Tr0ub4dor&"3\\x';

	it("is redacted in the call's fragments, its arguments and the Trace; the tool still gets the value", async () => {
		const { session, home, model } = await harness([[callTool("echo", { text: PASSWORD }, "c1")], [say("done")]], {
			tools: [echoTool()],
			secrets: () => [PASSWORD],
		});
		const out = await runText(session, "log in", { approve: async () => "allow" });
		const deltas = ofType(out, "partial_tool_call").map((m) => m.delta);
		expect(deltas.join("")).toBe('{"text":"[redacted]"}');
		expect(ofType(out, "tool_call")).toMatchObject([{ arguments: '{"text":"[redacted]"}' }]);
		expect(ofType(out, "tool_call_output")).toMatchObject([{ output: "echo: [redacted]" }]);
		expect(JSON.stringify(out)).not.toContain("Tr0ub4dor");
		expect(traceText(home, session.id)).not.toContain("Tr0ub4dor");
		// The engine's own context is not the stream: the model is sent what the tool really got.
		const sent = model.requests[1]?.messages.find((m) => m.type === "tool_call_output");
		expect(sent).toMatchObject({ output: `echo: ${PASSWORD}` });
	});
});

describe("a credential the config references outside the models (an MCP server's env), whatever its name", () => {
	const PAT = "ghp_0123456789abcdefGHIJ";

	it("is kept out of the shell's environment and redacted in the stream and the Trace", async () => {
		const configDir = tempDir("omniloop-config-");
		writeFileSync(
			join(configDir, "omniloop.yaml"),
			[
				"models:",
				"  m: { provider: openai, model: x }",
				"mcp:",
				'  github: { command: /nonexistent/github-mcp, env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GH_PAT}" } }',
				"agents:",
				"  bot: { model: m, sandbox: off }",
				"",
			].join("\n"),
		);
		const model = new ScriptedModel([
			[callTool("shell", { command: 'echo "[$GH_PAT][$PLAIN]"' }, "s1")],
			[say(`the token is ${PAT}`)],
		]);
		const home = tempDir("omniloop-home-");
		const agent = await strictAgent({
			agentId: "bot",
			configDir,
			home,
			models: { m: model },
			builtins: true,
			approval: { shell: "allow" },
			env: { ...process.env, GH_PAT: PAT, PLAIN: "kept" },
		});
		const session = await agent.createSession({ workspaceDir: tempDir("omniloop-ws-") });
		const out = await runText(session, "go");
		expect(ofType(out, "tool_call_output")).toMatchObject([{ output: "[][kept]\n[exit code 0]", status: "ok" }]);
		expect(ofType(out, "assistant_text").at(-1)).toMatchObject({ text: "the token is [redacted]" });
		expect(JSON.stringify(out)).not.toContain(PAT);
		expect(traceText(home, session.id)).not.toContain(PAT);
	});

	it("is redacted in a load error that quotes the server's output (a server that did not start)", async () => {
		const configDir = tempDir("omniloop-config-");
		writeFileSync(
			join(configDir, "omniloop.yaml"),
			[
				"models:",
				"  m: { provider: openai, model: x }",
				"mcp:",
				'  gh: { command: sh, args: ["-c", "echo auth failed for token $T >&2; exit 1"], env: { T: "${GH_PAT}" } }',
				"agents:",
				"  bot: { model: m }",
				"",
			].join("\n"),
		);
		const agent = await strictAgent({
			agentId: "bot",
			configDir,
			home: tempDir("omniloop-home-"),
			models: { m: new ScriptedModel([[say("ok")]]) },
			builtins: false,
			env: { ...process.env, GH_PAT: PAT },
		});
		const session = await agent.createSession({ workspaceDir: tempDir("omniloop-ws-") });
		expect(session.loadErrors).toMatchObject([{ server: "gh", message: expect.stringContaining("[redacted]") }]);
		expect(JSON.stringify(session.loadErrors)).not.toContain(PAT);
	});
});

import { readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError } from "../../src/config/system-config.js";
import { createAgent } from "../../src/engine/agent/agent.js";
import { callTool, ScriptedModel, say } from "../../src/model/scripted.js";
import { tool } from "../../src/tools/tool.js";
import { cleanup, collect, echoTool, lastDone, ofType, runText, tempDir, types } from "../harness.js";

afterEach(cleanup);

/** A project whose default_agent runs on `main`, with a second model `alt`, and a home. */
function twoModels(): { configDir: string; home: string } {
	const configDir = tempDir();
	writeFileSync(
		join(configDir, "omniloop.yaml"),
		"models:\n  main: { provider: openai, model: a, apiKey: k }\n  alt: { provider: openai, model: b, apiKey: k }\nagents:\n  default_agent: { model: main }\n",
	);
	return { configDir, home: tempDir() };
}

describe("createAgent", () => {
	it("works with no config file when a model is given", async () => {
		const home = tempDir();
		const agent = await createAgent({ agentId: "a", model: new ScriptedModel([[say("hi")]]), home });
		const session = await agent.createSession({ workspaceDir: tempDir() });
		expect(lastDone(await runText(session, "hello"))?.reason).toBe("model_stop");
		expect(agent.config.maxTurns).toBe(100);
	});

	it("says what is missing when there is no model", async () => {
		await expect(createAgent({ agentId: "a", home: tempDir() })).rejects.toThrow(/no model\. Pass `model`/);
	});

	it("reads system_config.yaml from the home, and names the file and key of a bad value", async () => {
		const home = tempDir();
		writeFileSync(join(home, "system_config.yaml"), "maxTurns: 7\ntimeouts:\n  toolMs: 1234\n");
		const agent = await createAgent({ agentId: "a", model: new ScriptedModel([]), home });
		expect(agent.config.maxTurns).toBe(7);
		expect(agent.config.timeouts).toMatchObject({ toolMs: 1234, idleMs: 90_000 });
		writeFileSync(join(home, "system_config.yaml"), "compaction:\n  mode: squash\n");
		const error = await createAgent({ agentId: "a", model: new ScriptedModel([]), home }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ConfigError);
		expect((error as ConfigError).message).toContain(join(home, "system_config.yaml"));
		expect((error as ConfigError).keyPath).toBe("compaction.mode");
	});

	it("refuses a workspace that is not a directory", async () => {
		const agent = await createAgent({ agentId: "a", model: new ScriptedModel([]), home: tempDir() });
		await expect(agent.createSession({ workspaceDir: join(tempDir(), "missing") })).rejects.toThrow(
			/is not a directory/,
		);
	});

	it("an allowed call that is not read-only starts once the model's output has completed, never on an unfinished turn", async () => {
		const write = tool({
			name: "write",
			description: "w",
			parameters: z.object({ n: z.number() }),
			execute: async ({ n }) => `${n}`,
		});
		const agent = await createAgent({
			agentId: "a",
			home: tempDir(),
			tools: [write],
			model: new ScriptedModel([[callTool("write", { n: 1 }, "a"), callTool("write", { n: 2 }, "b")], [say("ok")]]),
		});
		const session = await agent.createSession({ workspaceDir: tempDir() });
		const out = await runText(session, "go", { approve: async () => "allow" });
		const t = out.map((m) => `${m.type}${"callId" in m ? `:${m.callId}` : ""}`);
		expect(t.indexOf("tool_start:a")).toBeGreaterThan(t.indexOf("request_end"));
		expect(t.indexOf("tool_start:b")).toBeGreaterThan(t.indexOf("request_end"));
		expect(ofType(out, "tool_call_output")).toHaveLength(2);
		expect(types(out).at(-1)).toBe("done");
	});
});

describe("createAgent from configuration", () => {
	it("with no config file and a provider key set, a sensible default agent works", async () => {
		const agent = await createAgent({
			agentId: "default_agent",
			configDir: tempDir(),
			home: tempDir(),
			env: { OPENAI_API_KEY: "sk-test" },
		});
		const session = await agent.createSession({ workspaceDir: tempDir() });
		expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
		const header = JSON.parse(
			readFileSync(join(agent.home, "sessions", session.id, "trace.jsonl"), "utf8").split("\n")[0] ?? "{}",
		);
		expect(header).toMatchObject({ model: "openai:gpt-5-mini", modelRef: "default" });
	});

	it("with no model, no config and no key, says every way to give one", async () => {
		const made = createAgent({ agentId: "a", configDir: tempDir(), home: tempDir(), env: {} });
		await expect(made).rejects.toThrow(
			/no model\. Pass `model` to createAgent, write an omniloop\.yaml in .*, or set OPENAI_API_KEY or ANTHROPIC_API_KEY/,
		);
		// Hosts offer the offline demo on exactly this problem, so it is typed, not only worded.
		await expect(made).rejects.toMatchObject({ name: "AgentConfigError", problem: "no_model" });
	});

	it("takes the agent's model, system prompt, tools and approval rules from omniloop.yaml", async () => {
		const configDir = tempDir();
		writeFileSync(
			join(configDir, "omniloop.yaml"),
			'models:\n  m: { provider: anthropic, model: claude-x, apiKey: "${KEY}" }\nagents:\n  helper: { model: m, tools: [echo], approval: { echo: deny } }\n',
		);
		const agent = await createAgent({
			agentId: "helper",
			configDir,
			home: tempDir(),
			env: { KEY: "k" },
			tools: [echoTool()],
		});
		await agent.createSession({ workspaceDir: tempDir() });
		const other = createAgent({ agentId: "other", configDir, home: tempDir(), env: { KEY: "k" } });
		await expect(other).rejects.toThrow(/defines no agent "other" \(agents: helper\)/);
		await expect(other).rejects.toMatchObject({ problem: "unknown_agent" });
		// The toolset loads with the Session: a listed tool nobody provides is an error then.
		const withoutEcho = await createAgent({ agentId: "helper", configDir, home: tempDir(), env: { KEY: "k" } });
		await expect(withoutEcho.createSession({ workspaceDir: tempDir() })).rejects.toThrow(
			`${join(configDir, "omniloop.yaml")}: agents.helper.tools[0]: tool "echo" is not available`,
		);
	});

	it("reads omniloop.yaml again as each Session loads: an edited approval rule and system prompt hold from the next Session, no new agent needed", async () => {
		const configDir = tempDir();
		const home = tempDir();
		const write = (agent: string) =>
			writeFileSync(
				join(configDir, "omniloop.yaml"),
				`models:\n  m: { provider: anthropic, model: claude-x, apiKey: k }\nagents:\n  helper: ${agent}\n`,
			);
		write('{ model: m, system: "First prompt.", approval: { echo: allow } }');
		const model = new ScriptedModel([
			[callTool("echo", { text: "one" }, "c1")],
			[say("ok")],
			[callTool("echo", { text: "two" }, "c2")],
			[say("ok")],
		]);
		const agent = await createAgent({ agentId: "helper", configDir, home, models: { m: model }, tools: [echoTool()] });
		const first = await agent.createSession({ workspaceDir: tempDir() });
		expect(ofType(await runText(first, "go"), "approval_decision")).toMatchObject([
			{ decision: "allow", by: "policy" },
		]);
		write('{ model: m, system: "Second prompt.", approval: { echo: deny } }');
		const second = await agent.createSession({ workspaceDir: tempDir() });
		expect(ofType(await runText(second, "go"), "approval_decision")).toMatchObject([
			{ decision: "deny", by: "policy" },
		]);
		expect(model.requests[0]?.system).toContain("First prompt.");
		expect(model.requests[2]?.system).toContain("Second prompt.");
	});

	it("refuses to make a Session once omniloop.yaml is gone or replaced, rather than one with no rules on the default model", async () => {
		const configDir = tempDir();
		const real = join(tempDir(), "real.yaml");
		writeFileSync(
			real,
			'models:\n  m: { provider: anthropic, model: claude-x, apiKey: k }\nagents:\n  helper: { model: m, approval: { "*": deny } }\n',
		);
		symlinkSync(real, join(configDir, "omniloop.yaml"));
		// A provider key in the environment: without the file, an agent could be made from it alone.
		const agent = await createAgent({
			agentId: "helper",
			configDir,
			home: tempDir(),
			env: { ANTHROPIC_API_KEY: "sk-test" },
		});
		await (await agent.createSession({ workspaceDir: tempDir() })).close();
		rmSync(join(configDir, "omniloop.yaml"));
		await expect(agent.createSession({ workspaceDir: tempDir() })).rejects.toThrow(
			`${join(configDir, "omniloop.yaml")}: (top level): the file is gone, or was replaced, since omniloop first read it`,
		);
		// A file where the link was is not read either (a command may have made it).
		writeFileSync(join(configDir, "omniloop.yaml"), "models: {}\nagents: {}\n");
		await expect(agent.createSession({ workspaceDir: tempDir() })).rejects.toThrow(/the file is gone, or was replaced/);
	});

	it("refuses an approval rule whose key looks like a misspelt tool name, and a tool listed twice", async () => {
		const configDir = tempDir();
		const write = (agent: string) =>
			writeFileSync(
				join(configDir, "omniloop.yaml"),
				`models:\n  m: { provider: anthropic, model: claude-x, apiKey: "\${KEY}" }\nmcp:\n  gh: { command: /bin/false }\n  my.files: { command: /bin/false }\nagents:\n  helper: ${agent}\n  reviewer: { model: m, description: reviews }\n`,
			);
		const session = async () => {
			const agent = await createAgent({ agentId: "helper", configDir, home: tempDir(), env: { KEY: "k" } });
			return agent.createSession({ workspaceDir: tempDir() });
		};
		write("{ model: m, approval: { read_fle: deny } }");
		await expect(session()).rejects.toThrow(
			`${join(configDir, "omniloop.yaml")}: agents.helper.approval.read_fle: no tool is named "read_fle"; did you mean "read_file"?`,
		);
		await expect(session()).rejects.toMatchObject({ name: "AgentConfigError" });
		for (const typo of ["Shell", "agent__reviwer", "wirte_file"]) {
			write(`{ model: m, approval: { ${typo}: deny } }`);
			await expect(session(), typo).rejects.toThrow(`approval.${typo}: no tool is named`);
		}
		// Built-ins, subagents, "*", an MCP server's tools (which may not have started; by the server's
		// name as written, or as its tools are named) and a tool another host may have are let be.
		write(
			'{ model: m, approval: { read_file: deny, agent__reviewer: ask, gh__create_issue: ask, my_files__read: deny, deploy: ask, "*": ask } }',
		);
		await (await session()).close();
		write("{ model: m, tools: [read_file, shell, read_file] }");
		await expect(session()).rejects.toThrow(
			`${join(configDir, "omniloop.yaml")}: agents.helper.tools[2]: tool "read_file" is listed twice (first at [0])`,
		);
	});

	it("a resumed Session keeps the model it recorded, unless the host names another (modelName)", async () => {
		const { configDir, home } = twoModels();
		const main = new ScriptedModel([[say("from main")], [say("main again")]]);
		const alt = new ScriptedModel([[say("from alt")]]);
		const models = { main, alt };
		const first = await createAgent({ agentId: "default_agent", configDir, home, models });
		const session = await first.createSession({ workspaceDir: tempDir() });
		await runText(session, "one");
		await session.close();
		const switched = await createAgent({ agentId: "default_agent", configDir, home, models, modelName: "alt" });
		const onAlt = await switched.resumeSession(session.id);
		expect(ofType(await runText(onAlt, "two"), "assistant_text").map((m) => m.text)).toEqual(["from alt"]);
		await onAlt.close();
		const plain = await createAgent({ agentId: "default_agent", configDir, home, models });
		const onMain = await plain.resumeSession(session.id);
		expect(ofType(await runText(onMain, "three"), "assistant_text").map((m) => m.text)).toEqual(["main again"]);
		expect(main.requests).toHaveLength(2);
		expect(alt.requests).toHaveLength(1);
	});

	it("a compaction on a chosen model records that model in the next Trace file: a plain resume goes on with it", async () => {
		const { configDir, home } = twoModels();
		const main = new ScriptedModel([[say(`from main: ${"a long answer ".repeat(40)}`)]]);
		const alt = new ScriptedModel([[say("[summary]they said one[/summary]")], [say("alt after resume")]]);
		const models = { main, alt };
		const first = await createAgent({ agentId: "default_agent", configDir, home, models });
		const session = await first.createSession({ workspaceDir: tempDir() });
		await runText(session, "one");
		await session.close();
		const switched = await createAgent({ agentId: "default_agent", configDir, home, models, modelName: "alt" });
		const onAlt = await switched.resumeSession(session.id);
		expect(ofType(await collect(onAlt.compact()), "compaction_end")).toMatchObject([{ status: "ok" }]);
		await onAlt.close();
		const plain = await createAgent({ agentId: "default_agent", configDir, home, models });
		const resumed = await plain.resumeSession(session.id);
		expect(ofType(await runText(resumed, "two"), "assistant_text").map((m) => m.text)).toEqual(["alt after resume"]);
		expect(main.requests).toHaveLength(1);
	});

	it("reads credentials when a Session loads: a missing key is an error naming the file, key and variable", async () => {
		const configDir = tempDir();
		writeFileSync(
			join(configDir, "omniloop.yaml"),
			'models:\n  m: { provider: openai, model: x, apiKey: "${MISSING_KEY}" }\nagents:\n  a: { model: m }\n',
		);
		const agent = await createAgent({ agentId: "a", configDir, home: tempDir(), env: {} });
		await expect(agent.createSession({ workspaceDir: tempDir() })).rejects.toThrow(
			/models\.m\.apiKey: environment variable MISSING_KEY is not set/,
		);
	});
});

import {
	existsSync,
	mkdirSync,
	readFileSync,
	realpathSync,
	renameSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/engine/agent/agent.js";
import { userText } from "../../src/messages/constructors.js";
import { callTool, ScriptedModel, say } from "../../src/model/scripted.js";
import { cleanup, collect, lastDone, ofType, tempDir } from "../harness.js";
import { NODE, processExists, TEST_SERVER } from "./mcp-helpers.js";

afterEach(cleanup);

describe("MCP servers named in omniloop.yaml", () => {
	it("start when a Session loads, offer their tools as name__tool with their schemas, and stop when it closes; a server that fails is an error for that server alone", async () => {
		const configDir = tempDir();
		const pidFile = join(tempDir(), "server.pid");
		writeFileSync(
			join(configDir, "omniloop.yaml"),
			[
				"models:",
				"  m: { provider: anthropic, model: x }",
				"agents:",
				"  default_agent: { model: m }",
				"mcp:",
				`  calc: { command: "${NODE}", args: ["${TEST_SERVER}"], env: { PID_FILE: "\${PID_PATH}" }, trustReadOnlyHints: true }`,
				"  broken: { command: /nonexistent/mcp-server }",
			].join("\n"),
		);
		const model = new ScriptedModel([[callTool("calc__add", { a: 2, b: 3 }, "c1")], [say("5")]]);
		const agent = await createAgent({
			agentId: "default_agent",
			configDir,
			home: tempDir(),
			env: { ...process.env, PID_PATH: pidFile },
			models: { m: model },
			builtins: false,
		});
		const session = await agent.createSession({ workspaceDir: tempDir() });
		expect(session.loadErrors).toEqual([{ server: "broken", message: expect.stringContaining('MCP server "broken"') }]);
		expect(session.toolNames).toContain("calc__add");

		const out = await collect(session.run([userText("add 2 and 3")]));
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(ofType(out, "tool_call_output")[0]).toMatchObject({
			callId: "c1",
			status: "ok",
			output: expect.stringContaining("5"),
		});
		const spec = model.requests[0]?.tools.find((t) => t.name === "calc__add");
		expect(spec?.inputSchema).toMatchObject({
			type: "object",
			properties: { a: { type: "number" }, b: { type: "number" } },
		});
		expect(spec?.inputSchema.$schema).toBeUndefined();
		// The server's add tool is marked read-only, so the default policy allowed it without asking.
		expect(ofType(out, "approval_decision")[0]).toMatchObject({ decision: "allow", by: "policy" });

		const pid = Number(readFileSync(pidFile, "utf8"));
		expect(processExists(pid)).toBe(true);
		await session.close();
		expect(processExists(pid)).toBe(false);
	});

	it("an approval rule written with the server's own name (unsafe characters and all) holds for its tool", async () => {
		const configDir = tempDir();
		writeFileSync(
			join(configDir, "omniloop.yaml"),
			[
				"models:",
				"  m: { provider: anthropic, model: x }",
				"agents:",
				'  default_agent: { model: m, approval: { "*": allow, "my.calc__add": deny } }',
				"mcp:",
				`  my.calc: { command: "${NODE}", args: ["${TEST_SERVER}"] }`,
			].join("\n"),
		);
		const model = new ScriptedModel([[callTool("my_calc__add", { a: 2, b: 3 }, "c1")], [say("refused")]]);
		const agent = await createAgent({
			agentId: "default_agent",
			configDir,
			home: tempDir(),
			models: { m: model },
			builtins: false,
		});
		const session = await agent.createSession({ workspaceDir: tempDir() });
		expect(session.toolNames).toContain("my_calc__add");
		const out = await collect(session.run([userText("add 2 and 3")]));
		expect(ofType(out, "approval_decision")).toMatchObject([{ decision: "deny", by: "policy" }]);
		expect(ofType(out, "tool_call_output")[0]).toMatchObject({ callId: "c1", status: "denied" });
		await session.close();
	});

	it("are not started on resume where the workspace no longer leads to itself (swapped for a link between processes): a load error names it", async () => {
		const configDir = tempDir();
		const pidFile = join(tempDir(), "server.pid");
		writeFileSync(
			join(configDir, "omniloop.yaml"),
			[
				"models:",
				"  m: { provider: anthropic, model: x }",
				"agents:",
				"  default_agent: { model: m }",
				"mcp:",
				`  calc: { command: "${NODE}", args: ["${TEST_SERVER}"], env: { PID_FILE: "\${PID_PATH}" }, trustReadOnlyHints: true }`,
			].join("\n"),
		);
		const options = {
			agentId: "default_agent",
			configDir,
			home: tempDir(),
			env: { ...process.env, PID_PATH: pidFile },
			models: { m: new ScriptedModel([]) },
			builtins: false,
		};
		const root = realpathSync(tempDir());
		const workspace = join(root, "project");
		const elsewhere = join(root, "elsewhere");
		mkdirSync(workspace);
		mkdirSync(elsewhere);
		const made = await (await createAgent(options)).createSession({ workspaceDir: workspace });
		expect(made.loadErrors).toEqual([]);
		await made.close();
		rmSync(pidFile);
		renameSync(workspace, join(root, "project-moved"));
		symlinkSync(elsewhere, workspace);

		const resumed = await (await createAgent(options)).resumeSession(made.id);
		expect(resumed.loadErrors).toEqual([
			{
				server: "calc",
				message: `not started: the workspace ${workspace} now leads to ${elsewhere} (it was replaced by a link or moved)`,
			},
		]);
		expect(resumed.toolNames).not.toContain("calc__add");
		expect(existsSync(pidFile)).toBe(false);
		await resumed.close();
	});
});

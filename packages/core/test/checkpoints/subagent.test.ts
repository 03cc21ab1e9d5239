import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/engine/agent/agent.js";
import { callTool, ScriptedModel, say } from "../../src/model/scripted.js";
import { cleanup, ofType, runText, tempDir } from "../harness.js";

afterEach(cleanup);

describe("checkpoints and subagents", () => {
	it("a turn that hands work to a subagent is checkpointed first: what the subagent wrote is undone", async () => {
		const configDir = tempDir();
		writeFileSync(
			join(configDir, "omniloop.yaml"),
			[
				"models:",
				"  main: { provider: anthropic, model: boss-model }",
				"  helper: { provider: anthropic, model: helper-model }",
				"agents:",
				'  boss: { model: main, approval: { "*": allow } }',
				'  writer: { model: helper, description: Writes files., approval: { "*": allow } }',
			].join("\n"),
		);
		const boss = new ScriptedModel([[callTool("agent__writer", { task: "write it" })], [say("done")]]);
		const writer = new ScriptedModel([
			[callTool("write_file", { path: "sub.txt", content: "by the subagent\n" })],
			[say("wrote")],
		]);
		const agent = await createAgent({
			agentId: "boss",
			configDir,
			home: tempDir(),
			models: { main: boss, helper: writer },
		});
		const workspace = tempDir();
		const session = await agent.createSession({ workspaceDir: workspace });
		const out = await runText(session, "delegate");
		expect(ofType(out, "checkpoint_created").filter((c) => c.origin === undefined)).toHaveLength(1);
		expect(existsSync(join(workspace, "sub.txt"))).toBe(true);
		const undone = await session.undo();
		expect(undone.restored).toEqual(["sub.txt"]);
		expect(existsSync(join(workspace, "sub.txt"))).toBe(false);
	});
});

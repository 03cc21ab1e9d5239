import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent } from "../../src/engine/agent/agent.js";
import { userText } from "../../src/messages/constructors.js";
import { callTool, ScriptedModel, say } from "../../src/model/scripted.js";
import { tool } from "../../src/tools/tool.js";
import { cleanup, collect, lastDone, tempDir } from "../harness.js";
import { bossAndResearcher } from "./subagent-project.js";

afterEach(cleanup);

const SECRET = "sk-test-0123456789abcdef0123";

/** Echoes a raw message through the public `ctx.task.forward`, as any tool may. */
const leak = tool({
	name: "leak",
	description: "forwards a message holding the key",
	parameters: z.object({}),
	execute: async (_, ctx) => {
		ctx.task.forward({ id: "x", ts: 0, seq: 0, type: "assistant_text", text: `key ${SECRET}` });
		return "done";
	},
});

async function run(boss: ScriptedModel, researcher: ScriptedModel) {
	const agent = await createAgent({
		agentId: "boss",
		configDir: bossAndResearcher(),
		home: tempDir(),
		models: { main: boss, helper: researcher },
		builtins: false,
		tools: [leak],
		secrets: () => [SECRET],
	});
	const session = await agent.createSession({ workspaceDir: tempDir() });
	return collect(session.run([userText("go")], { approve: async () => "allow" as const }));
}

describe("a subagent's stream in its parent's, redacted once", () => {
	it("holds no credential value: the subagent's text, its fragments, and the origin the parent adds (a call id the model chose)", async () => {
		const boss = new ScriptedModel([
			[callTool("agent__researcher", { task: "say the key" }, `delegate_${SECRET}`)],
			[say("ok")],
		]);
		const researcher = new ScriptedModel([[say(`the key is ${SECRET}, there`)]]);
		const out = await run(boss, researcher);

		expect(lastDone(out)).toMatchObject({ reason: "model_stop" });
		expect(JSON.stringify(out)).not.toContain(SECRET);
		const forwarded = out.filter((m) => m.origin !== undefined);
		expect(forwarded.find((m) => m.type === "assistant_text")).toMatchObject({
			text: "the key is [redacted], there",
			origin: { parentCallId: "delegate_[redacted]", agentId: "researcher" },
		});
		const deltas = forwarded.flatMap((m) => (m.type === "partial_text" ? [m.delta] : []));
		expect(deltas.join("")).toBe("the key is [redacted], there");
	});

	it("the public ctx.task.forward still redacts what a tool hands it", async () => {
		const boss = new ScriptedModel([[callTool("leak", {}, "l1")], [say("ok")]]);
		const out = await run(boss, new ScriptedModel([]));
		expect(JSON.stringify(out)).not.toContain(SECRET);
		expect(out.find((m) => m.type === "assistant_text" && m.text.startsWith("key "))).toMatchObject({
			text: "key [redacted]",
		});
	});
});

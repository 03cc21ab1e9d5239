// A Session in a process of its own, for kill.test.ts: its Task's write tool writes the first
// bytes of a file, says so, and hangs until the parent `kill -9`s this process. Every message the
// Session emits goes to stdout as one JSON line (stdout to a pipe is synchronous on Linux).
// Runs the built package (the test run's global setup builds it): node kill-child.mjs <home> <workspace>
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAgent, tool, userText } from "@omniloop/core";
import { callTool, reportUsage, ScriptedModel, say } from "@omniloop/core/testing";
import { z } from "zod";

const [home, workspace] = process.argv.slice(2);
const print = (record) => process.stdout.write(`${JSON.stringify(record)}\n`);

const slowWrite = tool({
	name: "slow_write",
	description: "Writes a file, slowly.",
	parameters: z.object({ path: z.string(), text: z.string() }),
	execute: async ({ path, text }, ctx) => {
		writeFileSync(join(ctx.workspaceDir, path), text.slice(0, 5));
		print({ type: "child_tool_running", callId: ctx.callId });
		await new Promise((resolve) => setTimeout(resolve, 600_000));
		return "written";
	},
});

const chunks = ["Writing ", "the ", "file ", "now."];
const model = new ScriptedModel([
	[
		say(chunks.join(""), chunks),
		callTool("slow_write", { path: "out.txt", text: "hello world" }, "w1"),
		reportUsage({ input: 120, output: 30 }),
	],
]);
const agent = await createAgent({
	agentId: "crash_agent",
	model,
	home,
	configDir: home,
	tools: [slowWrite],
	builtins: false,
	approval: { slow_write: "ask" },
});
const session = await agent.createSession({ workspaceDir: workspace });
print({ type: "child_session", sessionId: session.id });
for await (const message of session.run([userText("write out.txt")], { approve: async () => "allow" })) print(message);

// A Session in a process of its own, for kill-at-random.test.ts: a Task of several turns, each
// streaming text and calling tools (the write one asked about) that record every execution in `runs.log` in the workspace
// (one line per start, written before the tool's work) and then take a few milliseconds. Every
// message goes to stdout as one JSON line, until the parent `kill -9`s this process.
// Runs the built package (the test run's global setup builds it): node kill-many-child.mjs <home> <workspace>
import { createAgent, userText } from "@omniloop/core";
import { ScriptedModel } from "@omniloop/core/testing";
import { script, tools } from "./kill-many-script.mjs";

const [home, workspace] = process.argv.slice(2);
const print = (record) => process.stdout.write(`${JSON.stringify(record)}\n`);

const agent = await createAgent({
	agentId: "crash_agent",
	model: new ScriptedModel(script()),
	home,
	configDir: home,
	tools: tools(),
	builtins: false,
	approval: { append: "ask" },
});
const session = await agent.createSession({ workspaceDir: workspace });
print({ type: "child_session", sessionId: session.id });
// A person who takes a few milliseconds to allow each write, so kills also land mid-approval.
const approve = () => new Promise((resolve) => setTimeout(() => resolve("allow"), 8));
for await (const message of session.run([userText("start")], { approve })) print(message);

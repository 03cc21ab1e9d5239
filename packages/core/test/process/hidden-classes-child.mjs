// For hidden-classes.test.ts: Sessions made and resumed in this process, with V8's natives, so
// the test can ask whether their states share one hidden class. Runs the built package (the test
// run's global setup builds it):
//   node --allow-natives-syntax hidden-classes-child.mjs <home> <sessions>
import { createAgent, userText } from "@omniloop/core";
import { ScriptedModel, say } from "@omniloop/core/testing";
// Not public API: how a parent tags the messages it forwards from a subagent.
import { withOrigin } from "../../dist/messages/constructors.js";

const [home, count] = process.argv.slice(2);
const sessions = Number(count);
const model = new ScriptedModel(Array.from({ length: sessions }, () => [say("ok")]));
const agent = await createAgent({ agentId: "maps", model, builtins: false, system: "", home, configDir: home });

const made = [];
for (let i = 0; i < sessions; i++) {
	const session = await agent.createSession({ workspaceDir: home });
	for await (const _ of session.run([userText("go")]));
	made.push(session);
}
const resumed = [];
for (const session of made.slice(0, sessions / 2)) resumed.push(await agent.resumeSession(session.id));

// V8's own test for one hidden class, as source it compiles (--allow-natives-syntax): the file stays plain JS.
const haveSameMap = new Function("a", "b", "return %HaveSameMap(a, b)");

/** How many hidden classes the Sessions' states have among them (`state` is Session's own field). */
const hiddenClasses = (list) => {
	const firsts = list.map((s) => list.findIndex((t) => haveSameMap(s.state, t.state)));
	return new Set(firsts).size;
};

/** How many hidden classes the messages have among them. */
const messageClasses = (list) => new Set(list.map((m) => list.findIndex((t) => haveSameMap(m, t)))).size;
const origin = { sessionId: "child", agentId: "helper", parentCallId: "call_1" };
const forwarded = Array.from({ length: sessions }, (_, i) => withOrigin(userText(`delta ${i}`), origin));

process.stdout.write(
	`${JSON.stringify({ made: hiddenClasses(made), resumed: hiddenClasses(resumed), forwarded: messageClasses(forwarded) })}\n`,
);

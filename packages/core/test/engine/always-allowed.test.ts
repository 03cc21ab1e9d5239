import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent } from "../../src/engine/agent/agent.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage, ToolCall } from "../../src/messages/omni-message.js";
import { callTool, ScriptedModel, say } from "../../src/model/scripted.js";
import { AlwaysAllowed } from "../../src/session-store/always-allowed.js";
import { tool } from "../../src/tools/tool.js";
import { sessionDir } from "../../src/trace/trace-files.js";
import { cleanup, collect, harness, ofType, runText, tempDir, tracedMessages } from "../harness.js";
import { bossAndResearcher } from "./subagent-project.js";

afterEach(cleanup);

const write = tool({ name: "write", description: "w", parameters: z.object({}), execute: async () => "wrote" });

/** approval_decision and confirmation_required of a run, as "<type>:<callId>:<by>". */
function approvals(out: readonly OmniMessage[]): string[] {
	return out.flatMap((m) => {
		if (m.type === "confirmation_required") return [`asked:${m.callId}`];
		if (m.type === "approval_decision") return [`decided:${m.callId}:${m.by}`];
		return [];
	});
}

describe('a tool a person allowed "always" in the Session', () => {
	it("its next call is decided before it is announced: no confirmation_required, approve is not asked, the decision says by: always", async () => {
		const turns = [[callTool("write", {}, "w1")], [callTool("write", {}, "w2")], [say("ok")]];
		const { session, home } = await harness(turns, { tools: [write] });
		// The host keeps the grant where it hears the answer, as the CLI and the server do.
		const grants = new AlwaysAllowed(home, session.id);
		const asked: string[] = [];
		const out = await runText(session, "go", {
			approve: async (call) => {
				asked.push(call.callId);
				grants.add(call.name);
				return "allow";
			},
		});
		expect(asked).toEqual(["w1"]);
		expect(approvals(out)).toEqual(["asked:w1", "decided:w1:user", "decided:w2:always"]);
		const [, second] = ofType(out, "approval_decision");
		expect(second).toMatchObject({ decision: "allow", by: "always" });
		expect(second?.correlationId).toBeUndefined();
		expect(ofType(out, "tool_call_output").map((o) => o.status)).toEqual(["ok", "ok"]);
		// The Trace says nobody was asked about the second call either.
		expect(approvals(tracedMessages(home, session.id))).toEqual(approvals(out));
	});

	it("a grant another host writes to the Session's file while the Task runs holds at the next call", async () => {
		const turns = [[callTool("write", {}, "w1")], [callTool("write", {}, "w2")], [say("ok")]];
		const { session, home } = await harness(turns, { tools: [write] });
		const out = await runText(session, "go", {
			approve: async () => {
				// Another process (a CLI on the same home) answered "always" meanwhile: only the file
				// beside the Trace changed, nothing this process holds.
				writeFileSync(join(sessionDir(home, session.id), "always-allowed.json"), '["write"]\n');
				// This answer itself is a plain allow.
				return "allow";
			},
		});
		expect(approvals(out)).toEqual(["asked:w1", "decided:w1:user", "decided:w2:always"]);
	});

	it("a call already announced (askAhead) when the grant comes is still asked: its question gets its own answer", async () => {
		const { session, home } = await harness([[callTool("write", {}, "w1"), callTool("write", {}, "w2")], [say("ok")]], {
			tools: [write],
		});
		const grants = new AlwaysAllowed(home, session.id);
		const asked: string[] = [];
		const out = await runText(session, "go", {
			askAhead: true,
			approve: async (call) => {
				asked.push(call.callId);
				grants.add(call.name);
				return "allow";
			},
		});
		expect(asked).toEqual(["w1", "w2"]);
		expect(approvals(out)).toEqual(["asked:w1", "asked:w2", "decided:w1:user", "decided:w2:user"]);
	});

	it("a grant is the Session's own: another Session of the agent is still asked", async () => {
		const { session, home, agent } = await harness([[callTool("write", {}, "w1")], [say("ok")]], { tools: [write] });
		const other = await agent.createSession({ workspaceDir: tempDir() });
		new AlwaysAllowed(home, other.id).add("write");
		const out = await runText(session, "go", { approve: async () => "allow" });
		expect(approvals(out)).toEqual(["asked:w1", "decided:w1:user"]);
	});

	it("a run with no approve still denies: a grant does not stand in for a host that can ask nobody", async () => {
		const { session, home } = await harness([[callTool("write", {}, "w1")], [say("ok")]], { tools: [write] });
		new AlwaysAllowed(home, session.id).add("write");
		const out = await runText(session, "go");
		expect(approvals(out)).toEqual(["decided:w1:policy"]);
		expect(ofType(out, "tool_call_output")[0]?.status).toBe("denied");
	});

	it("the policy still comes first: a tool the policy denies stays denied", async () => {
		const { session, home } = await harness([[callTool("write", {}, "w1")], [say("ok")]], {
			tools: [write],
			approval: { write: "deny" },
		});
		new AlwaysAllowed(home, session.id).add("write");
		const out = await runText(session, "go", { approve: async () => "allow" });
		expect(approvals(out)).toEqual(["decided:w1:policy"]);
	});

	it("a subagent's call of a granted tool is decided the same way: the grant is the top-level Session's", async () => {
		const configDir = bossAndResearcher();
		const boss = new ScriptedModel([[callTool("agent__researcher", { task: "note it" }, "d1")], [say("done")]]);
		const researcher = new ScriptedModel([[callTool("write", {}, "w1")], [say("noted")]]);
		const home = tempDir();
		const agent = await createAgent({
			agentId: "boss",
			configDir,
			home,
			models: { main: boss, helper: researcher },
			builtins: false,
			tools: [write],
		});
		const session = await agent.createSession({ workspaceDir: tempDir() });
		new AlwaysAllowed(home, session.id).add("write");
		const asked: ToolCall[] = [];
		const out = await collect(
			session.run([userText("go")], {
				approve: async (call) => {
					asked.push(call);
					return "allow";
				},
			}),
		);
		expect(asked).toEqual([]);
		expect(ofType(out, "confirmation_required")).toEqual([]);
		expect(ofType(out, "approval_decision").find((d) => d.callId === "w1")).toMatchObject({
			by: "always",
			origin: { agentId: "researcher" },
		});
	});

	it("a grant given as the top agent's commands run does not reach a subagent whose sandbox is looser: its calls are asked", async () => {
		const configDir = tempDir();
		writeFileSync(
			join(configDir, "omniloop.yaml"),
			[
				"models:",
				"  main: { provider: anthropic, model: boss-model }",
				"  helper: { provider: anthropic, model: ops-model }",
				"agents:",
				"  boss: { model: main }",
				'  ops: { model: helper, description: Runs things., sandbox: "off" }',
			].join("\n"),
		);
		const boss = new ScriptedModel([[callTool("agent__ops", { task: "write" }, "d1")], [say("done")]]);
		const ops = new ScriptedModel([[callTool("write", {}, "w1")], [say("wrote")]]);
		const home = tempDir();
		const agent = await createAgent({
			agentId: "boss",
			configDir,
			home,
			models: { main: boss, helper: ops },
			builtins: false,
			tools: [write],
		});
		const session = await agent.createSession({ workspaceDir: tempDir() });
		new AlwaysAllowed(home, session.id).add("write");
		const asked: string[] = [];
		const out = await collect(
			session.run([userText("go")], {
				approve: async (call) => {
					asked.push(`${call.origin?.agentId ?? "boss"}:${call.callId}`);
					return "allow";
				},
			}),
		);
		expect(asked).toEqual(["ops:w1"]);
		expect(ofType(out, "approval_decision").find((d) => d.callId === "w1")).toMatchObject({ by: "user" });
	});
});

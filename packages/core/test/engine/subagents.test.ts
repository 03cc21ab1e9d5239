import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent } from "../../src/engine/agent/agent.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage, ToolCall } from "../../src/messages/omni-message.js";
import { createGate } from "../../src/model/gate.js";
import { callTool, holdAt, reportUsage, ScriptedModel, say } from "../../src/model/scripted.js";
import { tool } from "../../src/tools/tool.js";
import { sessionDir } from "../../src/trace/trace-files.js";
import { cleanup, collect, lastDone, ofType, tempDir, tracedMessages, tracedMessagesIn } from "../harness.js";
import { bossAndResearcher } from "./subagent-project.js";

afterEach(cleanup);

const write = tool({
	name: "write",
	description: "writes",
	parameters: z.object({ text: z.string() }),
	execute: async ({ text }) => `wrote ${text}`,
});

/** A project with a "boss" agent and a "researcher" subagent, each on its own scripted model. */
async function project(boss: ScriptedModel, researcher: ScriptedModel, extraAgents = "") {
	const configDir = bossAndResearcher(extraAgents);
	const agent = await createAgent({
		agentId: "boss",
		configDir,
		home: tempDir(),
		models: { main: boss, helper: researcher },
		builtins: false,
		tools: [write],
	});
	const session = await agent.createSession({ workspaceDir: tempDir() });
	return { agent, session };
}

/** Three levels: "boss" calls "researcher", which can call "critic" (both have descriptions). */
async function threeLevels(boss: ScriptedModel, researcher: ScriptedModel, critic: ScriptedModel, tools = [write]) {
	const configDir = tempDir();
	writeFileSync(
		join(configDir, "omniloop.yaml"),
		[
			"models:",
			"  a: { provider: anthropic, model: a }",
			"  b: { provider: anthropic, model: b }",
			"  c: { provider: anthropic, model: c }",
			"agents:",
			"  boss: { model: a }",
			"  researcher: { model: b, description: Researches. }",
			"  critic: { model: c, description: Criticises. }",
		].join("\n"),
	);
	const agent = await createAgent({
		agentId: "boss",
		configDir,
		home: tempDir(),
		models: { a: boss, b: researcher, c: critic },
		builtins: false,
		tools,
	});
	return agent.createSession({ workspaceDir: tempDir() });
}

describe("subagents", () => {
	it("a subagent runs as an independent Session: its messages are forwarded tagged with origin, its approvals reach the parent's approve, its usage rolls up, and its final answer is the tool's output", async () => {
		const boss = new ScriptedModel([
			[reportUsage({ input: 100, output: 10 }), callTool("agent__researcher", { task: "What is X?" }, "delegate_1")],
			[reportUsage({ input: 200, output: 20 }), say("The researcher found: X is 42.")],
		]);
		const researcher = new ScriptedModel([
			[reportUsage({ input: 30, output: 3 }), callTool("write", { text: "notes" }, "w1")],
			[reportUsage({ input: 40, output: 4 }), say("X is 42.")],
		]);
		const { agent, session } = await project(boss, researcher);
		const asked: ToolCall[] = [];
		const approve = async (call: ToolCall) => {
			asked.push(call);
			return "allow" as const;
		};
		const out = await collect(session.run([userText("find X")], { approve }));

		expect(lastDone(out)).toMatchObject({ reason: "model_stop" });
		const output = ofType(out, "tool_call_output").find((o) => o.callId === "delegate_1");
		expect(output).toMatchObject({ status: "ok", output: "X is 42." });
		// Forwarded, tagged with origin.
		const forwarded = out.filter((m) => m.origin !== undefined);
		expect(forwarded.length).toBeGreaterThan(5);
		const childId = forwarded[0]?.origin?.sessionId;
		expect(
			forwarded.every(
				(m) =>
					m.origin?.agentId === "researcher" &&
					m.origin.parentCallId === "delegate_1" &&
					m.origin.sessionId === childId,
			),
		).toBe(true);
		expect(forwarded.map((m) => m.type)).toEqual(
			expect.arrayContaining(["user_text", "tool_call", "tool_call_output", "assistant_text", "done"]),
		);
		// The parent's stream stays one sequence.
		expect(out.map((m) => m.seq)).toEqual(out.map((_, i) => (out[0] as OmniMessage).seq + i));
		// The subagent's call needed approval: the parent's approve was asked, and could tell who asked.
		expect(asked).toMatchObject([{ callId: "w1", name: "write", origin: { agentId: "researcher" } }]);
		// Usage rolled up: the boss's two requests and the researcher's two.
		expect(lastDone(out)?.usage).toMatchObject({ input: 370, output: 37 });
		// Its own Trace, under the parent's folder; the parent's Trace holds none of its messages.
		const childTrace = tracedMessagesIn(join(sessionDir(agent.home, session.id), "subagents", childId as string));
		expect(childTrace[0]).toMatchObject({ type: "user_text", text: "What is X?" });
		expect(tracedMessages(agent.home, session.id).some((m) => m.origin !== undefined)).toBe(false);
		expect(researcher.requests[0]?.messages).toMatchObject([{ type: "user_text", text: "What is X?" }]);
	});

	it("each token_usage names the model that answered: a subagent's forwarded usage its own model, not its parent's", async () => {
		const boss = new ScriptedModel(
			[[callTool("agent__researcher", { task: "What is X?" }, "delegate_1")], [say("X is 42.")]],
			{ id: "bench:boss-model" },
		);
		const researcher = new ScriptedModel([[say("42")]], { id: "bench:researcher-model" });
		const { session } = await project(boss, researcher);
		const out = await collect(session.run([userText("find X")]));
		expect(ofType(out, "token_usage").map((u) => [u.origin?.agentId ?? "boss", u.model])).toEqual([
			["boss", "bench:boss-model"],
			["researcher", "bench:researcher-model"],
			["boss", "bench:boss-model"],
		]);
	});

	it("the parent's abort stops the child, and the parent's generator returns promptly", async () => {
		const gate = createGate();
		const boss = new ScriptedModel([[callTool("agent__researcher", { task: "think long" }, "d1")], [say("never")]]);
		const researcher = new ScriptedModel([[say("thinking…"), holdAt(gate), say("never said")]]);
		const signals: AbortSignal[] = [];
		const streamGenerate = researcher.streamGenerate.bind(researcher);
		researcher.streamGenerate = (request, signal) => {
			signals.push(signal);
			return streamGenerate(request, signal);
		};
		const { session } = await project(boss, researcher);
		const controller = new AbortController();
		const out: OmniMessage[] = [];
		for await (const m of session.run([userText("go")], { signal: controller.signal })) {
			out.push(m);
			if (m.type === "assistant_text" && m.origin !== undefined) controller.abort();
		}
		expect(out.map((m) => m.type).slice(-2)).toEqual(["abort", "done"]);
		// The child saw the abort: its model request was cancelled (a child left running would hold it forever).
		const [childSignal] = signals;
		if (childSignal !== undefined && !childSignal.aborted)
			await new Promise((resolve) => childSignal.addEventListener("abort", resolve, { once: true }));
		expect(childSignal?.aborted).toBe(true);
		expect(gate.isReleased).toBe(false);
		expect(researcher.requests).toHaveLength(1);
	});

	it("a subagent that fails gives the parent's model an error output, not a crash", async () => {
		const boss = new ScriptedModel([
			[callTool("agent__researcher", { task: "x" }, "d1")],
			[say("It failed; I will do it myself.")],
		]);
		const researcher = new ScriptedModel([
			[{ type: "fail", failure: { class: "fatal", message: "bad request", status: 400 } }],
		]);
		const { session } = await project(boss, researcher);
		const out = await collect(session.run([userText("go")]));
		expect(ofType(out, "tool_call_output").find((o) => o.callId === "d1")).toMatchObject({
			status: "error",
			output: expect.stringContaining("the researcher agent stopped without an answer (error: bad request)"),
		});
		expect(lastDone(out)?.reason).toBe("model_stop");
	});

	it("subagents nest to a depth limit (default 2): a Session at the limit gets no subagent tools", async () => {
		const names = (model: ScriptedModel) => model.requests[0]?.tools.map((t) => t.name) ?? [];
		const boss = new ScriptedModel([[callTool("agent__researcher", { task: "go deeper" }, "d1")], [say("done")]]);
		const researcher = new ScriptedModel([
			[callTool("agent__critic", { task: "deeper still" }, "d2")],
			[say("researched")],
		]);
		const critic = new ScriptedModel([[say("criticised")]]);
		const session = await threeLevels(boss, researcher, critic, []);
		const out = await collect(session.run([userText("go")]));
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(names(boss)).toEqual(["agent__researcher", "agent__critic"]);
		expect(names(researcher)).toEqual(["agent__critic"]);
		expect(names(critic)).toEqual([]);
		// The critic's messages reach the top, tagged with the critic's own origin.
		expect(out.some((m) => m.origin?.agentId === "critic" && m.type === "assistant_text")).toBe(true);
	});

	it("a grandchild's call is asked about only after the host has read it (depth 2)", async () => {
		const boss = new ScriptedModel([[callTool("agent__researcher", { task: "r" }, "d1")], [say("done")]]);
		const researcher = new ScriptedModel([[callTool("agent__critic", { task: "c" }, "d2")], [say("researched")]]);
		const critic = new ScriptedModel([[callTool("write", { text: "x" }, "w_critic")], [say("criticised")]]);
		const session = await threeLevels(boss, researcher, critic);
		const read = new Set<string>();
		const askedUnread: string[] = [];
		const approve = async (call: ToolCall) => {
			if (!read.has(call.callId)) askedUnread.push(call.callId);
			return "allow" as const;
		};
		const out: OmniMessage[] = [];
		for await (const m of session.run([userText("go")], { approve })) {
			out.push(m);
			if (m.type === "tool_call") read.add(m.callId);
			await new Promise((r) => setTimeout(r, 2)); // a host that renders each message
		}
		expect(ofType(out, "tool_call_output").some((o) => o.callId === "w_critic")).toBe(true);
		expect(askedUnread).toEqual([]);
	});
});

import { type Agent, type AgentOptions, createAgent } from "../../src/engine/agent/agent.js";
import type { Session } from "../../src/engine/session/session.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, ScriptedModel, type ScriptedTurn, say } from "../../src/model/scripted.js";
import { runText, tempDir } from "../harness.js";

export interface FilesHarness {
	agent: Agent;
	session: Session;
	model: ScriptedModel;
	home: string;
	workspace: string;
}

/** An agent with the built-in tools, every call allowed, on the scripted model: tools change real files. */
export async function filesHarness(
	turns: ScriptedTurn[],
	options: Partial<AgentOptions> & { workspace?: string; home?: string } = {},
): Promise<FilesHarness> {
	const home = options.home ?? tempDir("omniloop-home-");
	const workspace = options.workspace ?? tempDir("omniloop-ws-");
	const model = new ScriptedModel(turns, { whenExhausted: { text: "ok" } });
	const agent = await createAgent({ agentId: "files_agent", model, home, approval: { "*": "allow" }, ...options });
	const session = await agent.createSession({ workspaceDir: workspace });
	return { agent, session, model, home, workspace };
}

/** A turn that calls one tool, then a turn that says it is done. */
export function toolTurn(name: string, args: Record<string, string>): ScriptedTurn[] {
	return [[callTool(name, args)], [say("done")]];
}

/** Runs one prompt to its end and returns what it streamed. */
export function prompt(session: Session, text: string): Promise<OmniMessage[]> {
	return runText(session, text);
}

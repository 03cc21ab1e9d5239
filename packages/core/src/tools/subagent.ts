import { z } from "zod";
import { type Tool, type ToolContext, tool } from "./tool.js";

/**
 * Runs another configured agent for one task and returns its final answer. Implemented by the
 * engine (it needs Sessions); the tool only knows this contract.
 *
 * Contract: the nested Session is independent (its own Trace), its messages reach the caller
 * through `ctx.task.forward` tagged with `origin`, its approvals go to `ctx.task.approve`, it stops
 * when `ctx.signal` fires, and its usage is added through `ctx.task.addUsage`. Rejects with an
 * Error the model can read when the nested Task does not end with an answer.
 */
export interface SubagentRunner {
	run(agentId: string, task: string, ctx: ToolContext): Promise<string>;
}

export const SUBAGENT_PREFIX = "agent__";

/**
 * The tool that hands a task to agent `agentId`. Read-only by the approval policy's lights: the
 * delegation itself changes nothing, and every call the subagent makes is approved on its own.
 */
export function subagentTool(agentId: string, description: string, runner: SubagentRunner): Tool<{ task: string }> {
	const delegate = tool({
		name: `${SUBAGENT_PREFIX}${agentId}`,
		description: `Hands a task to the "${agentId}" agent and returns its final answer. ${description}`,
		parameters: z.object({
			task: z
				.string()
				.min(1)
				.describe("The complete instruction for the agent: it sees nothing else of this conversation."),
		}),
		readOnly: true,
		execute: ({ task }, ctx) => runner.run(agentId, task, ctx),
	});
	// Its own tools may write, and the subagent's Session keeps no checkpoints: this turn's covers them.
	return { ...delegate, changesFiles: true };
}

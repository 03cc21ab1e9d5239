import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { userText, withOrigin } from "../../messages/constructors.js";
import type { OmniMessage, Origin } from "../../messages/omni-message.js";
import { AlwaysAllowed } from "../../session-store/always-allowed.js";
import type { ShellPolicy } from "../../tools/sandbox/command-sandbox.js";
import type { SubagentRunner } from "../../tools/subagent.js";
import type { ApproveFn, ToolContext } from "../../tools/tool.js";
import type { Session } from "../session/session.js";
import { redactedForwardOf } from "../task/redacted-forward.js";
import type { AgentSetup, SessionPlace } from "./agent-setup.js";

/** Opens a Session; given rather than imported, since the Session factory is what makes runners. */
export type OpenSession = (setup: AgentSetup, place: SessionPlace) => Promise<Session>;

/**
 * Runs subagents for one Session: each delegation is a new, independent Session of the other
 * agent, with its own Trace in this Session's folder (`subagents/<id>/`), one level deeper.
 */
export class SessionSubagents implements SubagentRunner {
	/** The top-level Session's grants: a nested Session's calls are asked of the same person. */
	private readonly grants: AlwaysAllowed;

	constructor(
		private readonly setup: AgentSetup,
		private readonly parent: SessionPlace,
		private readonly open: OpenSession,
	) {
		this.grants = parent.alwaysAllowed ?? new AlwaysAllowed({ sessionFolder: parent.traceDir });
	}

	async run(agentId: string, task: string, ctx: ToolContext): Promise<string> {
		const sessionId = randomUUID();
		const definition = this.setup.define(agentId);
		const traceDir = join(this.parent.traceDir, "subagents", sessionId);
		const child = await this.open(
			// No ship hook: the host copies top-level Traces (see TraceShipHook).
			{ ...this.setup, definition, shipTrace: undefined, guard: undefined },
			{
				sessionId,
				workspaceDir: this.parent.workspaceDir,
				traceDir,
				depth: this.parent.depth + 1,
				// A person's "always" was given for a tool as the top agent runs it: it holds for an agent
				// whose commands run as confined, not for one with a looser sandbox (`sandbox: off`, more
				// hosts), whose calls keep their own grants (none: each is asked).
				alwaysAllowed: sameConfinement(definition.shell, this.setup.definition.shell)
					? this.grants
					: new AlwaysAllowed({ sessionFolder: traceDir }),
			},
		);
		const origin: Origin = { sessionId, agentId, parentCallId: ctx.callId };
		const parentApprove = ctx.task.approve;
		// Every call forwarded through here, the nested ones too, by the Session that made it.
		const forwardedCalls = new Map<string, OmniMessage>();
		const key = (sessionId: string, callId: string) => `${sessionId}\u0000${callId}`;
		// The person sees which agent asks: the call reaches the parent's approve tagged like its
		// messages, once the host has read it from the parent's stream.
		const approve: ApproveFn | undefined =
			parentApprove === undefined
				? undefined
				: async (call, options) => {
						const forwarded = forwardedCalls.get(key((call.origin ?? origin).sessionId, call.callId));
						if (forwarded !== undefined) await ctx.task.delivered(forwarded);
						return parentApprove({ ...call, origin: call.origin ?? origin }, options);
					};
		// The child's Emitter redacted its stream with this Session's values: through the engine's
		// own path it is not redacted a second time (ctx.task.forward, public, redacts everything).
		const forward =
			redactedForwardOf(ctx.task) ??
			((message: OmniMessage, from: Origin) => {
				const tagged = withOrigin(message, message.origin ?? from);
				ctx.task.forward(tagged);
				return tagged;
			});
		let lastTurn: string[] = [];
		let ending: { reason: string; error?: { message: string } } | undefined;
		try {
			for await (const message of child.run([userText(task)], {
				signal: ctx.signal,
				...(approve ? { approve } : {}),
			})) {
				const forwarded = forward(message, origin);
				if (message.type === "tool_call")
					forwardedCalls.set(key((message.origin ?? origin).sessionId, message.callId), forwarded);
				if (message.type === "token_usage") ctx.task.addUsage(message.request);
				if (message.origin !== undefined) continue;
				if (message.type === "request_begin") lastTurn = [];
				if (message.type === "assistant_text") lastTurn.push(message.text);
				if (message.type === "done") ending = message;
			}
		} finally {
			await child.close();
		}
		if (ending?.reason !== "model_stop") {
			const why = ending?.error === undefined ? "" : `: ${ending.error.message}`;
			throw new Error(`the ${agentId} agent stopped without an answer (${ending?.reason ?? "no done"}${why})`);
		}
		return lastTurn.join("\n") || "(the agent gave no answer)";
	}
}

/** Whether commands of `child` run as confined as those of `parent`: the same sandbox, no host more. */
function sameConfinement(child: ShellPolicy, parent: ShellPolicy): boolean {
	return child.sandbox === parent.sandbox && child.network.every((host) => parent.network.includes(host));
}

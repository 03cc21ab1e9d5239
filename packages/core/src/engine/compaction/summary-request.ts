import { checkSummary } from "../../context/summary.js";
import { assistantText, reasoning, toolCall, toolCallOutput, userText } from "../../messages/constructors.js";
import type { ErrorInfo, ModelMessage, ToolCall } from "../../messages/omni-message.js";
import { isRetryable, type ModelFailure } from "../../model/failure.js";
import type { ModelRequest } from "../../model/model-adapter.js";
import type { LoopContext } from "../loop-types.js";
import { ensurePairing } from "../pairing.js";
import { ABORTED } from "../task/interruptible.js";
import { freshCallId } from "../turn/call-ids.js";
import { readEvent } from "../turn/model-read.js";
import type { OpenRequest } from "../turn/open-request.js";
import { reconnectDelay } from "../turn/reconnect.js";
import { endRequest, errorInfo, pairContext, startRequest } from "../turn/request.js";

/** Rejected replies (no summary, tool calls, too long) before a compaction gives up. */
export const MAX_REJECTIONS = 5;

export const NO_TOOLS_DURING_COMPACTION =
	"Tool calls are not available while the conversation is being compacted. Write the summary now, inside [summary]…[/summary].";

export type SummaryResult =
	| { status: "ok"; summary: string }
	| { status: "failed"; error: ErrorInfo }
	| { status: "aborted" };

type Reply =
	| { kind: "ok"; text: string; assistant: ModelMessage[]; calls: ToolCall[] }
	| { kind: "failed"; failure: ModelFailure }
	| { kind: "aborted" };

/**
 * Asks the model for the summary. The request is the Session's last request prefix — same system
 * prompt, same toolset, same messages — plus the compaction prompt, so the provider's prompt cache
 * still holds when the context is largest. A reply that calls tools, or whose summary is empty or
 * not smaller than the context, is rejected and the repaired request resent at once (up to 5);
 * transport failures reconnect on the compaction's own, tighter cap.
 */
export async function requestSummary(ctx: LoopContext): Promise<SummaryResult> {
	const { session } = ctx;
	pairContext(ctx);
	const replaced = session.context;
	const request: ModelRequest = {
		messages: [...replaced, userText(session.config.compaction.prompt)],
		tools: session.environment.tools.specs,
		purpose: "compaction",
		...(session.system === undefined ? {} : { system: session.system }),
	};
	let rejections = 0;
	let reconnects = 0;
	for (;;) {
		if (ctx.interrupt.signal.aborted) return { status: "aborted" };
		const attempt = startRequest(ctx, request, { turn: ctx.turnsThisTask, attempt: reconnects });
		const reply = await readReply(attempt, session.callIds);
		if (reply.kind === "aborted" || ctx.interrupt.signal.aborted) return { status: "aborted" };
		if (reply.kind === "failed") {
			const { failure } = reply;
			if (!isRetryable(failure) || reconnects >= session.config.reconnect.compactionMaxRetries) {
				endRequest(ctx, attempt, { status: failure.class === "auth" ? "auth" : "failed", failure });
				return { status: "failed", error: errorInfo(failure) };
			}
			reconnects++;
			const waitMs = reconnectDelay(reconnects, failure, session.config.reconnect);
			endRequest(ctx, attempt, {
				status: failure.class === "malformed" ? "malformed" : "timeout",
				failure,
				retry: { retry_in_ms: waitMs, attempt: reconnects },
			});
			const waited = await ctx.interrupt.race(ctx.reconnectWait.sleep(waitMs, ctx.interrupt.signal));
			if (waited === ABORTED || ctx.interrupt.signal.aborted) return { status: "aborted" };
			continue;
		}
		endRequest(ctx, attempt, { status: "ok" });
		const verdict = judge(reply, replaced);
		if ("summary" in verdict) return { status: "ok", summary: verdict.summary };
		rejections++;
		if (rejections >= MAX_REJECTIONS) {
			return {
				status: "failed",
				error: { kind: "rejected", message: `${MAX_REJECTIONS} replies were rejected; the last: ${verdict.why}` },
			};
		}
		// A rejection is the model's behaviour, not a transport failure: resent at once, no backoff.
		request.messages = checkedResend(ctx, [...request.messages, ...verdict.repair]);
	}
}

/** The summary a reply gives, or why it cannot be the summary and what to send back so the next reply can. */
function judge(
	reply: Extract<Reply, { kind: "ok" }>,
	replaced: readonly ModelMessage[],
): { summary: string } | { why: string; repair: ModelMessage[] } {
	if (reply.calls.length > 0) {
		// Every call gets a failed output, so the resent request keeps tool_use/tool_result pairing.
		const outputs = reply.calls.map((call) => toolCallOutput(call, NO_TOOLS_DURING_COMPACTION, "error"));
		return { why: `it called ${reply.calls.map((c) => c.name).join(", ")}`, repair: [...reply.assistant, ...outputs] };
	}
	const check = checkSummary(reply.text, replaced);
	if (check.ok) return { summary: check.summary };
	return {
		why: check.detail,
		repair: [
			...reply.assistant,
			userText(`${check.detail} Reply with the summary inside [summary]…[/summary], shorter than the conversation.`),
		],
	};
}

/**
 * Reads a compaction reply whole: nothing of it is streamed to the host, only its events. A call
 * id the Session has used (some models repeat them) gets a fresh one, so the repaired resend
 * never holds an id twice; these calls never run, but their ids are taken like any other.
 */
async function readReply(attempt: OpenRequest, callIds: Set<string>): Promise<Reply> {
	const assistant: ModelMessage[] = [];
	const calls: ToolCall[] = [];
	let text = "";
	for (;;) {
		const next = await readEvent(attempt.read);
		if ("end" in next) {
			attempt.read.close();
			if (next.end.kind === "ok") return { kind: "ok", text, assistant, calls };
			return next.end;
		}
		const { event } = next;
		switch (event.type) {
			case "text":
				text += event.text;
				assistant.push(assistantText(event.text));
				break;
			case "reasoning":
				assistant.push(reasoning(event.text, event.providerMetadata));
				break;
			case "tool_call": {
				const call = toolCall(freshCallId(event.callId, callIds), event.name, event.arguments);
				calls.push(call);
				assistant.push(call);
				break;
			}
			case "usage":
				attempt.usage = event.usage;
				break;
			default:
				break;
		}
	}
}

/** A resend goes through the same pairing check as every request (a repair means a bug here). */
function checkedResend(ctx: LoopContext, messages: ModelMessage[]): ModelMessage[] {
	const paired = ensurePairing(messages);
	if (paired.repairs.length > 0) ctx.session.onPairingRepair?.(paired.repairs, ctx.session.sessionId);
	return paired.messages;
}

import type { SystemConfig } from "../../config/system-config.js";
import { userText } from "../../messages/constructors.js";
import { writeMarker } from "../../messages/markers.js";
import type { UserText } from "../../messages/omni-message.js";
import { isRetryable, type ModelFailure } from "../../model/failure.js";
import type { LoopContext, LoopState } from "../loop-types.js";
import { ABORTED } from "../task/interruptible.js";
import { endRequest, errorInfo, startRequest } from "./request.js";
import type { Turn } from "./turn.js";

/**
 * The wait before reconnect number `attempt` (1-based): min(base·2^(attempt-1), cap), or the
 * provider's retry-after, capped the same way.
 */
export function reconnectDelay(attempt: number, failure: ModelFailure, settings: SystemConfig["reconnect"]): number {
	const wait = failure.retryAfterMs ?? settings.baseMs * 2 ** (attempt - 1);
	return Math.min(Math.max(0, Math.round(wait)), settings.capMs);
}

/**
 * After a failed attempt: reconnect (timeout and malformed only, at most `maxRetries` times a
 * turn, the counter never reset) or end the Task. A reconnect re-sends the turn's original
 * input plus a `[turn_retried]` block carrying the partial output; calls already made are in
 * the batch and are never run again.
 */
export async function reconnectOrFail(
	ctx: LoopContext,
	turn: Turn,
	failure: ModelFailure,
): Promise<LoopState | "reconnected"> {
	const settings = ctx.session.config.reconnect;
	if (!isRetryable(failure) || turn.reconnects >= settings.maxRetries) {
		const status = failure.class === "auth" ? "auth" : "failed";
		endRequest(ctx, turn.attempt, { status, failure });
		return { kind: "done", reason: "error", error: errorInfo(failure) };
	}
	const attempt = turn.reconnects + 1;
	const waitMs = reconnectDelay(attempt, failure, settings);
	endRequest(ctx, turn.attempt, {
		status: failure.class === "malformed" ? "malformed" : "timeout",
		failure,
		retry: { retry_in_ms: waitMs, attempt },
	});
	turn.keepPartial();
	// The original input, unchanged (its prefix keeps the provider's prompt cache), then the block.
	const retry = { ...turn.request, messages: [...turn.request.messages, turnRetried(turn, attempt, failure)] };
	const waited = await ctx.interrupt.race(ctx.reconnectWait.sleep(waitMs, ctx.interrupt.signal));
	if (waited === ABORTED || ctx.interrupt.signal.aborted) return { kind: "done", reason: "user_abort" };
	turn.reconnects = attempt;
	turn.begin(startRequest(ctx, retry, { turn: turn.number, attempt }));
	return "reconnected";
}

/**
 * The `[turn_retried]` block: that this is a reconnect, and what the failed attempts of this turn
 * had already produced (or that nothing had arrived).
 */
function turnRetried(turn: Turn, attempt: number, failure: ModelFailure): UserText {
	const said = [...turn.assistant.flatMap((m) => (m.type === "assistant_text" ? [m.text] : [])), ...turn.lostText];
	const { lostReasoning, lostCalls } = turn;
	// Nothing at all streamed: no text, no reasoning, no call, whole or cut off.
	const streamed = said.length + lostReasoning.length + lostCalls.length + turn.calls.length + turn.assistant.length;
	const failed = `The connection to the model failed during its response (${failure.class}: ${failure.message}); this is reconnect ${attempt}, with the same input.`;
	if (streamed === 0)
		return userText(writeMarker("turn_retried", `${failed}\nNothing of the response had arrived: answer it in full.`));
	const lines = [
		failed,
		"Continue the response from where it stopped. Do not repeat what was already said, and do not call again the tools already called: each runs once and its result follows this turn.",
	];
	// Complete reasoning of a failed attempt stays in the turn (and joins the context): the model sees it here.
	const thought = turn.assistant.flatMap((m) => (m.type === "reasoning" ? [m.text] : []));
	if (thought.length > 0) lines.push("Already reasoned:", thought.join("\n"));
	if (lostReasoning.length > 0) lines.push("Reasoning cut off:", lostReasoning.join("\n"));
	if (said.length > 0) lines.push("Already said:", said.join("\n"));
	if (turn.calls.length > 0) {
		lines.push("Tool calls already made:", ...turn.calls.map((c) => `- ${c.name}(${c.arguments}) [call ${c.callId}]`));
	}
	if (lostCalls.length > 0) {
		lines.push(
			"Tool calls cut off before they were complete (never run; call them again if still needed):",
			...lostCalls.map((c) => `- ${c.name}(${c.args}…)`),
		);
	}
	return userText(writeMarker("turn_retried", lines.join("\n")));
}

import { clearOldToolResults } from "../../context/tool-result-clearing.js";
import { userText } from "../../messages/constructors.js";
import { writeMarker } from "../../messages/markers.js";
import type { ToolCallOutput } from "../../messages/omni-message.js";
import { batchHost } from "../batch/batch-host.js";
import { ToolBatch } from "../batch/tool-batch.js";
import { compactionDue } from "../compaction/triggers.js";
import type { LoopContext, LoopState } from "../loop-types.js";
import { pairContext, startRequest, turnRequest } from "../turn/request.js";
import { Turn } from "../turn/turn.js";

/**
 * thinking: check the loop's limits and the compaction triggers, assemble the input, clear older
 * tool results when the context is large, check pairing and start the model call.
 */
export async function thinking(ctx: LoopContext): Promise<LoopState> {
	const { session } = ctx;
	deliverPending(ctx);
	const limit = checkLimits(ctx);
	if (limit !== undefined) return limit;
	const due = compactionDue(session);
	if (due !== undefined) return { kind: "compacting", reason: due };

	assembleInput(ctx);
	clearToolResultsIfLarge(ctx);
	pairContext(ctx);

	ctx.turnsThisTask++;
	session.turnCount++;
	session.compaction.turnsSince++;
	session.compaction.justCompacted = false;
	const request = turnRequest(ctx);
	const turn = new Turn(ctx.turnsThisTask, new ToolBatch(batchHost(ctx)), request);
	ctx.turn = turn;
	turn.begin(startRequest(ctx, request, { turn: turn.number, attempt: 0 }));
	return { kind: "streaming", turn };
}

/**
 * What belongs in the context before anything is decided: the last batch's outputs, in call
 * order (they pair with calls already there, even when a limit ends the Task now), and on the
 * Task's first turn the carry-over of the last one. A compaction then summarizes them too.
 */
function deliverPending(ctx: LoopContext): void {
	const { session, turn } = ctx;
	if (turn !== undefined && !turn.outputsDelivered) {
		for (const call of turn.calls) ctx.loopDetector?.record(call, turn.batch.outputFor(call.callId) as ToolCallOutput);
		turn.deliverOutputs(session.context);
	}
	if (turn === undefined) {
		session.context.push(...session.carryOver);
		session.carryOver = [];
	}
}

/** max_turns, the Session's token budget and repeated calls, checked between turns. */
function checkLimits(ctx: LoopContext): LoopState | undefined {
	const { session } = ctx;
	if (ctx.turnsThisTask >= session.config.maxTurns) return { kind: "done", reason: "max_turns" };
	const budget = session.config.maxSessionTokens;
	if (budget > 0 && session.usage.total >= budget) return { kind: "done", reason: "budget_exceeded" };
	const loop = ctx.loopDetector?.take();
	if (loop?.verdict === "stop") return { kind: "done", reason: "loop_detected" };
	if (loop?.verdict === "warn" && loop.call !== undefined) {
		const warning = userText(
			writeMarker(
				"loop_warning",
				`You have called ${loop.call.name} with the same arguments ${session.config.loopDetection.repeats - 1} times and got the same result each time. Do not repeat it: change your approach, or answer with what you have. The same call once more ends the Task.`,
			),
		);
		session.context.push(warning);
		ctx.out.emit(warning);
	}
	return undefined;
}

/** The Task's prompt (first turn only), then queued steering (every turn). */
function assembleInput(ctx: LoopContext): void {
	const { session } = ctx;
	if (ctx.turn === undefined) {
		for (const message of ctx.prompt) {
			session.context.push(message);
			ctx.out.emit(message);
		}
	}
	for (const steering of ctx.steering.drain()) {
		session.context.push(steering);
		ctx.out.emit(steering);
	}
}

/**
 * Above the configured share of the context window, outputs older than the last N turns become
 * placeholders (on by default, as the spec's thinking step). Each turn above the share rewrites
 * the outputs that have just aged past N, so the provider's prompt cache is lost from there on —
 * the price of a context that stays under the compaction trigger longer.
 */
function clearToolResultsIfLarge(ctx: LoopContext): void {
	const { session } = ctx;
	const { enabled, threshold, keepTurns } = session.config.clearToolResults;
	const window = session.config.compaction.maxContextLength;
	if (!enabled || window <= 0 || session.lastRequestTotal < threshold * window) return;
	session.context = clearOldToolResults(session.context, keepTurns).messages;
}

import { addUsage } from "../../messages/constructors.js";
import { batchHost } from "../batch/batch-host.js";
import { ToolBatch } from "../batch/tool-batch.js";
import type { LoopContext, LoopState } from "../loop-types.js";
import { turnRequest } from "../turn/request.js";
import { Turn } from "../turn/turn.js";
import type { UnfinishedTurn } from "./unfinished-turn.js";

/**
 * Where a continued Task re-enters the loop: the unfinished turn's batch, rebuilt from the Trace,
 * in executing (its model output had completed). From there the loop goes on as if nothing had
 * happened: the outputs join the context in call order and the next request follows.
 */
export function continueTurn(ctx: LoopContext, unfinished: UnfinishedTurn): LoopState {
	const { session } = ctx;
	// The turn's own request is only ever re-sent by a reconnect, which a completed output cannot need.
	const turn = new Turn(unfinished.taskSoFar.turns, new ToolBatch(batchHost(ctx)), turnRequest(ctx));
	turn.outputComplete = true;
	ctx.turn = turn;
	carryTaskSoFar(ctx, unfinished);
	// The calls' outputs come from the batch now, not from the carry-over that stood in for them.
	session.carryOver = [];
	for (const call of unfinished.calls) {
		turn.batch.continueCall(call, unfinished.records.get(call.callId) ?? { started: false });
	}
	turn.batch.outputComplete();
	return { kind: "executing", turn };
}

/** The continued Task goes on counting: its turns toward max_turns, its tokens toward `done.usage`. */
export function carryTaskSoFar(ctx: LoopContext, unfinished: UnfinishedTurn): void {
	ctx.turnsThisTask = unfinished.taskSoFar.turns;
	addUsage(ctx.taskUsage, unfinished.taskSoFar.usage);
}

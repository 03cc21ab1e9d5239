import type { ModelRequest } from "../../model/model-adapter.js";
import { batchHost } from "../batch/batch-host.js";
import { ToolBatch } from "../batch/tool-batch.js";
import type { LoopContext, LoopState } from "../loop-types.js";
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
	const request: ModelRequest = {
		messages: session.context.slice(),
		tools: session.environment.tools.specs,
		purpose: "turn",
	};
	const turn = new Turn(1, new ToolBatch(batchHost(ctx)), request);
	turn.outputComplete = true;
	ctx.turn = turn;
	ctx.turnsThisTask = 1;
	for (const call of unfinished.calls) {
		turn.batch.continueCall(call, unfinished.records.get(call.callId) ?? { started: false });
	}
	turn.batch.outputComplete();
	return { kind: "executing", turn };
}

import type { ModelRequest } from "../../model/model-adapter.js";
import type { LoopContext, LoopState } from "../loop-types.js";
import { ensurePairing } from "../pairing.js";
import { startRequest } from "../request.js";
import { type BatchHost, ToolBatch } from "../tool-batch.js";
import { Turn } from "../turn.js";

/**
 * thinking: check the loop's limits, assemble the input, check pairing and start the model call.
 */
export async function thinking(ctx: LoopContext): Promise<LoopState> {
	const { session } = ctx;
	// The last batch's outputs, in call order, pair with calls already in the context: they join
	// it even when a limit ends the Task here.
	ctx.turn?.deliverOutputs(session.context);
	if (ctx.turnsThisTask >= session.config.maxTurns) return { kind: "done", reason: "max_turns" };

	assembleInput(ctx);
	const paired = ensurePairing(session.context);
	if (paired.repairs.length > 0) {
		session.context = paired.messages;
		session.onPairingRepair?.(paired.repairs, session.sessionId);
	}

	ctx.turnsThisTask++;
	session.turnCount++;
	const request: ModelRequest = {
		messages: session.context.slice(),
		tools: session.tools.specs,
		purpose: "turn",
		...(session.system === undefined ? {} : { system: session.system }),
		...(ctx.thinkingLevel === undefined ? {} : { thinkingLevel: ctx.thinkingLevel }),
	};
	const turn = new Turn(ctx.turnsThisTask, new ToolBatch(batchHost(ctx)), request);
	ctx.turn = turn;
	startRequest(ctx, turn, request);
	return { kind: "streaming", turn };
}

/**
 * The next request's input joins the model context: on the Task's first turn the carry-over and
 * then the prompt. Queued steering follows, on every turn.
 */
function assembleInput(ctx: LoopContext): void {
	const { session } = ctx;
	if (ctx.turn === undefined) {
		session.context.push(...session.carryOver);
		session.carryOver = [];
		for (const message of ctx.prompt) {
			session.context.push(message);
			ctx.emit(message);
		}
	}
	for (const steering of ctx.steering.drain()) {
		session.context.push(steering);
		ctx.emit(steering);
	}
}

function batchHost(ctx: LoopContext): BatchHost {
	const { session } = ctx;
	return {
		tools: session.tools,
		approval: session.approval,
		approve: ctx.approve,
		workspaceDir: session.workspaceDir,
		toolTimeoutMs: session.config.timeouts.toolMs,
		interrupt: ctx.interrupt,
		emit: ctx.emit,
		flushTrace: () => session.trace.flush(),
		fail: ctx.fail,
	};
}

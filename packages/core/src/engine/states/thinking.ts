import { makeMessage } from "../../messages/constructors.js";
import { failureFromUnknown } from "../../model/failure.js";
import type { ModelRequest } from "../../model/model-adapter.js";
import type { LoopContext, LoopState } from "../loop-types.js";
import { ensurePairing } from "../pairing.js";
import { ToolBatch } from "../tool-batch.js";
import { Turn } from "../turn.js";
import { failedRequest } from "./streaming.js";

/**
 * thinking: check the loop's limits, assemble the input, check pairing and start the model call.
 */
export async function thinking(ctx: LoopContext): Promise<LoopState> {
	const { session } = ctx;
	if (ctx.turnsThisTask >= session.config.maxTurns) return { kind: "done", reason: "max_turns" };

	assembleInput(ctx);
	const paired = ensurePairing(session.context);
	if (paired.repairs.length > 0) {
		session.context = paired.messages;
		session.onPairingRepair?.(paired.repairs, session.sessionId);
	}

	ctx.turnsThisTask++;
	session.turnCount++;
	const turn = new Turn(ctx.turnsThisTask, new ToolBatch(batchHost(ctx)));
	ctx.turn = turn;
	ctx.emit(makeRequestBegin(turn.number, 0));
	session.trace.flush();

	const request: ModelRequest = {
		messages: session.context.slice(),
		tools: session.tools.specs,
		purpose: "turn",
		...(session.system === undefined ? {} : { system: session.system }),
		...(ctx.thinkingLevel === undefined ? {} : { thinkingLevel: ctx.thinkingLevel }),
	};
	try {
		turn.stream = session.model.streamGenerate(request, ctx.interrupt.signal)[Symbol.asyncIterator]();
	} catch (error) {
		return failedRequest(ctx, failureFromUnknown(error));
	}
	return { kind: "streaming" };
}

/**
 * The next request's input joins the model context: on the Task's first turn the carry-over, the
 * steering the last Task could not deliver, and the prompt; after that the last batch's outputs
 * in call order. Queued steering follows either.
 */
function assembleInput(ctx: LoopContext): void {
	const { session } = ctx;
	if (ctx.turn === undefined) {
		session.context.push(...session.carryOver);
		session.carryOver = [];
		for (const steering of session.undeliveredSteering) {
			session.context.push(steering);
			ctx.emit(steering);
		}
		session.undeliveredSteering = [];
		for (const message of ctx.prompt) {
			session.context.push(message);
			ctx.emit(message);
		}
	} else {
		session.context.push(...ctx.pendingOutputs);
		ctx.pendingOutputs = [];
	}
	for (const steering of ctx.steering.drain()) {
		session.context.push(steering);
		ctx.emit(steering);
	}
}

function batchHost(ctx: LoopContext) {
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
	};
}

function makeRequestBegin(turn: number, attempt: number) {
	return makeMessage("request_begin", { turn, attempt });
}

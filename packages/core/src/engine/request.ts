import { addUsage, emptyUsage, makeMessage } from "../messages/constructors.js";
import type { ErrorInfo, OmniMessage, RequestStatus } from "../messages/omni-message.js";
import { failureFromUnknown, type ModelFailure } from "../model/failure.js";
import type { ModelEvent, ModelRequest } from "../model/model-adapter.js";
import type { LoopContext } from "./loop-types.js";
import type { Turn } from "./turn.js";

/**
 * Starts one attempt of the turn's request: `request_begin`, then the model call. A model that
 * throws instead of streaming an outcome is answered with that failure as a one-event stream,
 * so the streaming state sees every failure the same way.
 */
export function startRequest(ctx: LoopContext, turn: Turn, request: ModelRequest): void {
	ctx.emit(makeMessage("request_begin", { turn: turn.number, attempt: turn.reconnects }));
	turn.requestOpen = true;
	ctx.session.trace.flush();
	try {
		turn.stream = ctx.session.model.streamGenerate(request, ctx.interrupt.signal)[Symbol.asyncIterator]();
	} catch (error) {
		turn.stream = failedStream(failureFromUnknown(error));
	}
}

async function* failedStream(failure: ModelFailure): AsyncGenerator<ModelEvent, void, undefined> {
	yield { type: "outcome", outcome: { status: "error", failure } };
}

export interface RetryPlan {
	retry_in_ms: number;
	attempt: number;
}

/**
 * token_usage then request_end: how every request ends, whatever its status. `emit` is the
 * Task's emitter unless the request is closed while the Task ends (`emitFinal`).
 */
export function endRequest(
	ctx: LoopContext,
	turn: Turn,
	status: RequestStatus,
	failure?: ModelFailure,
	retry?: RetryPlan,
	emit: (message: OmniMessage) => void = ctx.emit,
): void {
	// Once the Task is ending, the request stays open: `done` closes it as aborted, before `abort`.
	if (emit === ctx.emit && ctx.interrupt.signal.aborted) return;
	const usage = turn.usage ?? emptyUsage();
	turn.usage = undefined;
	turn.requestOpen = false;
	addUsage(ctx.session.usage, usage);
	addUsage(ctx.taskUsage, usage);
	emit(makeMessage("token_usage", { request: usage, session: { ...ctx.session.usage } }));
	emit(
		makeMessage("request_end", {
			status,
			...(retry === undefined ? {} : retry),
			...(failure === undefined ? {} : { error: errorInfo(failure) }),
		}),
	);
}

export function errorInfo(failure: ModelFailure): ErrorInfo {
	return {
		kind: failure.class,
		message: failure.message,
		...(failure.status === undefined ? {} : { status: failure.status }),
	};
}

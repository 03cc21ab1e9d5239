import { addUsage, emptyUsage, makeMessage } from "../messages/constructors.js";
import type { ErrorInfo, OmniMessage, RequestStatus, Usage } from "../messages/omni-message.js";
import { failureFromUnknown, type ModelFailure } from "../model/failure.js";
import type { ModelEvent, ModelRequest } from "../model/model-adapter.js";
import type { LoopContext } from "./loop-types.js";

/** One model request in flight: the usage it reported, and whether its request_end is still owed. */
export interface OpenRequest {
	usage: Usage | undefined;
	open: boolean;
}

/**
 * Starts one attempt of a request: `request_begin`, then the model call. A model that throws
 * instead of streaming an outcome is answered with that failure as a one-event stream, so every
 * failure is seen the same way.
 */
export function startRequest(
	ctx: LoopContext,
	request: ModelRequest,
	begin: { turn: number; attempt: number },
): { tally: OpenRequest; stream: AsyncIterator<ModelEvent> } {
	ctx.emit(
		makeMessage("request_begin", {
			...begin,
			...(request.purpose === "compaction" ? { purpose: "compaction" as const } : {}),
		}),
	);
	const tally: OpenRequest = { usage: undefined, open: true };
	ctx.openRequest = tally;
	ctx.session.trace.flush();
	let stream: AsyncIterator<ModelEvent>;
	try {
		stream = ctx.session.model.streamGenerate(request, ctx.interrupt.signal)[Symbol.asyncIterator]();
	} catch (error) {
		stream = failedStream(failureFromUnknown(error));
	}
	return { tally, stream };
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
	tally: OpenRequest,
	status: RequestStatus,
	failure?: ModelFailure,
	retry?: RetryPlan,
	emit: (message: OmniMessage) => void = ctx.emit,
): void {
	// Once the Task is ending, the request stays open: `done` closes it as aborted, before `abort`.
	if (emit === ctx.emit && ctx.interrupt.signal.aborted) return;
	const usage = tally.usage ?? emptyUsage();
	tally.usage = undefined;
	tally.open = false;
	if (ctx.openRequest === tally) ctx.openRequest = undefined;
	addUsage(ctx.session.usage, usage);
	addUsage(ctx.taskUsage, usage);
	if (status === "ok") ctx.session.lastRequestTotal = usage.total;
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

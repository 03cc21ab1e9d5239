import type { LoopContext, TraceShipHook } from "../loop-types.js";
import type { BatchHost } from "./tool-batch.js";

function shipper(ship: TraceShipHook | undefined, sessionId: string): (() => Promise<void>) | undefined {
	return ship === undefined ? undefined : () => ship(sessionId);
}

/** What a turn's tool batch gets from its Task. */
export function batchHost(ctx: LoopContext): BatchHost {
	const { session } = ctx;
	return {
		environment: session.environment,
		approval: session.approval,
		approve: ctx.approve,
		taskHooks: ctx.taskHooks,
		interrupt: ctx.interrupt,
		emit: ctx.emit,
		flushTrace: () => session.trace.flush(),
		shipTrace: shipper(session.shipTrace, session.sessionId),
		delivered: ctx.delivered,
		fail: ctx.fail,
		askAhead: ctx.askAhead,
	};
}

import type { LoopContext } from "../loop-types.js";
import type { BatchHost } from "./tool-batch.js";

/** What a turn's tool batch gets from its Task. */
export function batchHost(ctx: LoopContext): BatchHost {
	const { session } = ctx;
	const ship = session.shipTrace;
	return {
		environment: session.environment,
		approval: session.approval,
		alwaysAllowed: session.alwaysAllowed,
		approve: ctx.approve,
		taskHooks: ctx.taskHooks,
		interrupt: ctx.interrupt,
		emit: ctx.emit,
		persistTrace: () => {
			session.trace.flush();
			return ship?.(session.sessionId);
		},
		delivered: ctx.delivered,
		fail: ctx.fail,
		askAhead: ctx.askAhead,
	};
}

import type { LoopContext } from "../loop-types.js";
import type { BatchHost } from "./tool-batch.js";

/**
 * Puts the Trace so far where a restart finds it: flushed to its file (throws if it cannot be
 * written), then, with a host that copies it elsewhere, a promise that settles once the host has
 * (TraceShipHook); undefined when there is nothing to wait for.
 */
export type TracePersist = () => Promise<void> | undefined;

/** What a turn's tool batch gets from its Task. */
export function batchHost(ctx: LoopContext): BatchHost {
	const { session } = ctx;
	const ship = session.shipTrace;
	return {
		environment: session.environment,
		approval: session.approval,
		approve: ctx.approve,
		taskHooks: ctx.taskHooks,
		interrupt: ctx.interrupt,
		emit: ctx.emit,
		persistTrace: () => {
			session.trace.flush();
			return ship?.(session.sessionId);
		},
		guard: () => session.guard?.(session.sessionId),
		delivered: ctx.delivered,
		fail: ctx.fail,
		askAhead: ctx.askAhead,
	};
}

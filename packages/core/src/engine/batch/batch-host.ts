import { makeMessage } from "../../messages/constructors.js";
import { errorMessage } from "../../messages/error-message.js";
import type { LoopContext } from "../loop-types.js";
import { createdEvent } from "../session/session-files.js";
import type { BatchHost } from "./tool-batch.js";

/** Made once per Task: its turns' batches share it (a dozen closures a turn otherwise). */
const hosts = new WeakMap<LoopContext, BatchHost>();

/** What a turn's tool batch gets from its Task. */
export function batchHost(ctx: LoopContext): BatchHost {
	let host = hosts.get(ctx);
	if (host === undefined) {
		host = makeBatchHost(ctx);
		hosts.set(ctx, host);
	}
	return host;
}

function makeBatchHost(ctx: LoopContext): BatchHost {
	const { session } = ctx;
	const ship = session.shipTrace;
	return {
		environment: session.environment,
		approval: session.approval,
		alwaysAllowed: session.alwaysAllowed,
		approve: ctx.approve,
		taskHooks: ctx.taskHooks,
		interrupt: ctx.interrupt,
		emit: (message) => ctx.out.emit(message),
		emitFinal: (message) => ctx.out.final(message),
		persistTrace: () => {
			session.trace.flush();
			return ship?.(session.sessionId, session.seq);
		},
		guard: () => session.guard?.(session.sessionId),
		delivered: (message) => ctx.out.delivered(message),
		fail: ctx.fail,
		askAhead: ctx.askAhead,
		checkpoint: session.checkpoints === undefined ? undefined : () => checkpointTurn(ctx),
	};
}

/** The turn's checkpoint, in the stream either way: made (with the files it left out), or failed (the turn goes on). */
async function checkpointTurn(ctx: LoopContext): Promise<void> {
	const { session } = ctx;
	const checkpoints = session.checkpoints;
	if (checkpoints === undefined) return;
	try {
		ctx.out.emit(createdEvent(await checkpoints.create("turn", session.seq)));
	} catch (error) {
		ctx.out.emit(
			makeMessage("checkpoint_failed", { reason: "turn", error: { kind: "checkpoint", message: errorMessage(error) } }),
		);
	}
}

import type { LoopContext, LoopState } from "../loop-types.js";
import { ABORTED } from "../task/interruptible.js";
import type { Turn } from "../turn/turn.js";
import { stopUnlessSteered } from "./model-stop.js";

/**
 * executing: the turn's approved calls run; outputs are emitted as they finish (by the batch).
 * When every call is terminal, the outputs go back in call order for the next request — no
 * request starts before that — or, when a tool ended the Task, they join the context and the
 * Task ends.
 */
export async function executing(ctx: LoopContext, turn: Turn): Promise<LoopState> {
	const { batch } = turn;
	if (batch.allTerminal) {
		// The files as this turn's tools left them, before the Task can end and the person edit them.
		await ctx.session.checkpoints?.seal().catch(() => {});
		return batch.endsTask ? endedByTool(ctx, turn) : { kind: "thinking" };
	}
	if (batch.awaitingApproval) return { kind: "confirming", turn };
	const changed = await ctx.interrupt.race(batch.changed());
	if (changed === ABORTED) return { kind: "done", reason: "user_abort" };
	return { kind: "executing", turn };
}

/** A tool ended the Task (`ToolContext.endTask`): its outputs join the context, then as when the model stops. */
function endedByTool(ctx: LoopContext, turn: Turn): LoopState {
	turn.deliverOutputs(ctx.session.context);
	return stopUnlessSteered(ctx);
}

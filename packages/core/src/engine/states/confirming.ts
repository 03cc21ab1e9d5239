import type { LoopContext, LoopState } from "../loop-types.js";
import { ABORTED } from "../task/interruptible.js";
import type { Turn } from "../turn/turn.js";

/**
 * confirming: the loop waits on the person's answer to one tool call. Allowed, the call runs;
 * denied, it gets its denial output; either way the batch goes on (executing, which goes to
 * thinking once every call is terminal). The signal firing here is an abort, not a deny.
 */
export async function confirming(ctx: LoopContext, turn: Turn): Promise<LoopState> {
	const answered = await ctx.interrupt.race(turn.batch.approvalAnswered());
	if (answered === ABORTED) return { kind: "done", reason: "user_abort" };
	return { kind: "executing", turn };
}

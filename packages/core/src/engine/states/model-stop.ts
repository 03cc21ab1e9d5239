import type { LoopContext, LoopState } from "../loop-types.js";

/**
 * The model is not asked again (it answered without tool calls, or a tool ended the Task): done
 * with `model_stop`, unless steering is waiting, which the model answers first. The queue closes
 * in the same synchronous step, so a steer() that returned true is always delivered.
 */
export function stopUnlessSteered(ctx: LoopContext): LoopState {
	if (ctx.steering.size > 0) return { kind: "thinking" };
	ctx.steering.stopAccepting();
	return { kind: "done", reason: "model_stop" };
}

import type { LoopContext, LoopState } from "./loop-types.js";
import { compacting } from "./states/compacting.js";
import { confirming } from "./states/confirming.js";
import { done } from "./states/done.js";
import { executing } from "./states/executing.js";
import { streaming } from "./states/streaming.js";
import { thinking } from "./states/thinking.js";

type RunningState = Exclude<LoopState, { kind: "done" }>;

const ABORT = { kind: "done", reason: "user_abort" } as const satisfies LoopState;

/**
 * The transition dispatcher: runs one handler per state until `done`. An abort ends the loop
 * between transitions; `done` runs exactly once.
 */
export async function runLoop(ctx: LoopContext): Promise<void> {
	let state: LoopState = { kind: "thinking" };
	while (state.kind !== "done") {
		state = ctx.interrupt.signal.aborted ? ABORT : await transition(ctx, state);
	}
	// A signal that fired while the last handler finished wins over its reason: whatever that
	// handler emitted after the signal was already held back, so the Task must end as aborted.
	await done(ctx, ctx.interrupt.signal.aborted ? ABORT : state);
}

/** One handler per state; a state without a handler does not compile. A throwing handler is a bug, reported as an error done. */
async function transition(ctx: LoopContext, state: RunningState): Promise<LoopState> {
	try {
		switch (state.kind) {
			case "thinking":
				return await thinking(ctx);
			case "streaming":
				return await streaming(ctx);
			case "executing":
				return await executing(ctx);
			case "confirming":
				return await confirming(ctx);
			case "compacting":
				return await compacting(ctx, state.reason);
			default:
				return assertNever(state);
		}
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		return { kind: "done", reason: "error", error: { kind: "internal", message: `${state.kind}: ${message}` } };
	}
}

function assertNever(state: never): never {
	throw new Error(`no handler for loop state ${JSON.stringify(state)}`);
}

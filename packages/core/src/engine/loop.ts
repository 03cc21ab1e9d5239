import { errorMessage } from "../messages/error-message.js";
import type { LoopContext, LoopState } from "./loop-types.js";
import { compacting } from "./states/compacting.js";
import { confirming } from "./states/confirming.js";
import { done } from "./states/done.js";
import { executing } from "./states/executing.js";
import { streaming } from "./states/streaming.js";
import { thinking } from "./states/thinking.js";

type RunningState = Exclude<LoopState, { kind: "done" }>;
type DoneState = Extract<LoopState, { kind: "done" }>;

/**
 * The transition dispatcher: runs one handler per state until `done`, from `start` (thinking for a
 * new Task; a continued Task enters at its unfinished turn). Cancellation and failures
 * from outside the handlers end the loop between transitions; `done` runs exactly once.
 */
export async function runLoop(ctx: LoopContext, start: LoopState = { kind: "thinking" }): Promise<void> {
	ctx.lifecycle.onInterrupted = () => done(ctx, ended(ctx, { kind: "thinking" }));
	let state: LoopState = start;
	while (state.kind !== "done") {
		if (!ctx.lifecycle.running) return;
		state = ctx.interrupt.aborted ? ended(ctx, state) : await transition(ctx, state);
	}
	// A signal that fired while the last handler finished wins over its reason: whatever that
	// handler emitted after the signal was held back, so the Task must end as interrupted.
	if (ctx.interrupt.aborted) return done(ctx, ended(ctx, state));
	await done(ctx, state);
}

/** How a Task whose signal fired ends: with the failure that fired it, or as a user abort. */
export function ended(ctx: LoopContext, state: LoopState): DoneState {
	if (ctx.failure !== undefined) return { kind: "done", reason: "error", error: ctx.failure };
	if (state.kind === "done" && state.reason === "user_abort") return state;
	return { kind: "done", reason: "user_abort" };
}

/** One handler per state; a state without a handler does not compile. A throwing handler is a bug, reported as an error done. */
async function transition(ctx: LoopContext, state: RunningState): Promise<LoopState> {
	try {
		switch (state.kind) {
			case "thinking":
				return await thinking(ctx);
			case "streaming":
				return await streaming(ctx, state.turn);
			case "executing":
				return await executing(ctx, state.turn);
			case "confirming":
				return await confirming(ctx, state.turn);
			case "compacting":
				return await compacting(ctx, state.reason);
			default:
				return assertNever(state);
		}
	} catch (error) {
		const message = errorMessage(error);
		return { kind: "done", reason: "error", error: { kind: "internal", message: `${state.kind}: ${message}` } };
	}
}

function assertNever(state: never): never {
	throw new Error(`no handler for loop state ${JSON.stringify(state)}`);
}

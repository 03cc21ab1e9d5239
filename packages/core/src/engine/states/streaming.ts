import { failureFromUnknown, type ModelFailure } from "../../model/failure.js";
import type { ModelEvent } from "../../model/model-adapter.js";
import { ABORTED } from "../interruptible.js";
import type { LoopContext, LoopState } from "../loop-types.js";
import { onModelEvent } from "../model-events.js";
import { reconnectOrFail } from "../reconnect.js";
import { endRequest, errorInfo } from "../request.js";
import type { Turn } from "../turn.js";

type AttemptEnd = { kind: "ok" } | { kind: "failed"; failure: ModelFailure } | { kind: "aborted" };

/**
 * streaming: forward deltas as partial_* fragments and complete items as model messages; hand
 * each complete tool_call to the batch at once. At the stream's end: token_usage, then
 * request_end, without waiting for tools. Transient failures reconnect here.
 */
export async function streaming(ctx: LoopContext, turn: Turn): Promise<LoopState> {
	for (;;) {
		const end = await readAttempt(ctx, turn);
		if (end.kind === "aborted") return { kind: "done", reason: "user_abort" };
		if (end.kind === "ok") return completeTurn(ctx, turn);
		if (end.failure.contextOverflow && !ctx.overflowRetried) return compactForOverflow(ctx, turn, end.failure);
		const next = await reconnectOrFail(ctx, turn, end.failure);
		if (next !== "reconnected") return next;
	}
}

/** Reads one attempt's stream to its outcome. */
async function readAttempt(ctx: LoopContext, turn: Turn): Promise<AttemptEnd> {
	const stream = turn.stream as AsyncIterator<ModelEvent>;
	for (;;) {
		let next: IteratorResult<ModelEvent> | typeof ABORTED;
		try {
			next = await ctx.interrupt.race(stream.next());
		} catch (error) {
			return { kind: "failed", failure: failureFromUnknown(error) };
		}
		if (next === ABORTED) return { kind: "aborted" };
		if (next.done)
			return { kind: "failed", failure: { class: "malformed", message: "the model stream ended without an outcome" } };
		const event = next.value;
		if (event.type !== "outcome") {
			onModelEvent(ctx, turn, event);
			continue;
		}
		stream.return?.().catch(() => {});
		const { outcome } = event;
		if (outcome.status === "ok") return { kind: "ok" };
		if (outcome.status === "aborted")
			return ctx.interrupt.signal.aborted
				? { kind: "aborted" }
				: { kind: "failed", failure: { class: "timeout", message: "the model stream was aborted" } };
		return { kind: "failed", failure: outcome.failure };
	}
}

/**
 * The provider said the request does not fit its context window: compact, then the request is
 * made again once (from the compacted context). A second overflow in the Task is final.
 */
function compactForOverflow(ctx: LoopContext, turn: Turn, failure: ModelFailure): LoopState {
	endRequest(ctx, turn.tally, "failed", failure);
	ctx.overflowRetried = true;
	ctx.overflow = errorInfo(failure);
	return { kind: "compacting", reason: "context" };
}

/** The output completed: its messages join the model context, and the turn is Case A from here. */
function completeTurn(ctx: LoopContext, turn: Turn): LoopState {
	turn.outputComplete = true;
	ctx.session.context.push(...turn.assistant);
	endRequest(ctx, turn.tally, "ok");
	turn.batch.outputComplete();
	if (turn.batch.size > 0) return { kind: "executing", turn };
	// No tool calls: the Task ends, unless steering is waiting. The queue closes in the same
	// synchronous step, so a steer() that returned true is always delivered.
	if (ctx.steering.size > 0) return { kind: "thinking" };
	ctx.steering.stopAccepting();
	return { kind: "done", reason: "model_stop" };
}

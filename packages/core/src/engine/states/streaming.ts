import type { ModelFailure } from "../../model/failure.js";
import type { ModelEvent } from "../../model/model-adapter.js";
import type { LoopContext, LoopState } from "../loop-types.js";
import { buildCarryOver } from "../turn/carry-over.js";
import { onModelEvent, type StreamEvent } from "../turn/model-events.js";
import type { AttemptEnd } from "../turn/model-read.js";
import { reconnectOrFail } from "../turn/reconnect.js";
import { endRequest, errorInfo } from "../turn/request.js";
import type { Turn } from "../turn/turn.js";
import { stopUnlessSteered } from "./model-stop.js";

/**
 * streaming: forward deltas as partial_* fragments and complete items as model messages; hand
 * each complete tool_call to the batch at once. At the stream's end: token_usage, then
 * request_end, without waiting for tools. Transient failures reconnect here.
 */
export async function streaming(ctx: LoopContext, turn: Turn): Promise<LoopState> {
	for (;;) {
		const end = await readAttempt(ctx, turn);
		// Checked after every await: once aborted, the Task's end is already recorded (or about to
		// be), and nothing may change the context it was recorded from.
		if (end.kind === "aborted" || ctx.interrupt.aborted) return { kind: "done", reason: "user_abort" };
		const failure = end.kind === "ok" ? truncatedCalls(turn) : end.failure;
		if (failure === undefined) return completeTurn(ctx, turn);
		if (failure.contextOverflow && !ctx.overflowRetried) return compactForOverflow(ctx, turn, failure);
		const next = await reconnectOrFail(ctx, turn, failure);
		if (next !== "reconnected") return next;
	}
}

/**
 * A stream that ended "ok" with a tool call still incomplete (a max-tokens cut, a provider that
 * dropped the call's end) is a truncated stream: `malformed`, so the turn reconnects with the
 * cut-off call in its `[turn_retried]` block, instead of ending as if the model had asked nothing.
 */
function truncatedCalls(turn: Turn): ModelFailure | undefined {
	if (turn.partialCalls.size === 0) return undefined;
	const names = [...turn.partialCalls.values()].map((call) => call.name).join(", ");
	return { class: "malformed", message: `the stream ended with a tool call incomplete (${names})` };
}

/**
 * Reads one attempt's stream to its outcome. Every streamed delta passes here: one await of the
 * model's own promise and no allocation of ours per event.
 */
async function readAttempt(ctx: LoopContext, turn: Turn): Promise<AttemptEnd> {
	const { read } = turn.attempt;
	const { interrupt } = ctx;
	for (;;) {
		let next: IteratorResult<ModelEvent>;
		let end: AttemptEnd | undefined;
		try {
			next = await read.next();
			end = read.endOf(next);
		} catch (error) {
			next = { done: true, value: undefined };
			end = read.failedRead(error);
		}
		if (interrupt.aborted) return ABORTED_ATTEMPT;
		if (end !== undefined) {
			read.close();
			return end;
		}
		onModelEvent(ctx, turn, next.value as StreamEvent, read.lastEventAt);
	}
}

const ABORTED_ATTEMPT: AttemptEnd = { kind: "aborted" };

/**
 * The provider said the request does not fit its context window: compact, then the request is
 * made again once (from the compacted context). A second overflow in the Task is final.
 */
function compactForOverflow(ctx: LoopContext, turn: Turn, failure: ModelFailure): LoopState {
	endRequest(ctx, turn.attempt, { status: "failed", failure });
	if (turn.calls.length > 0) {
		// The turn is given up: its calls never joined the context, so their outputs must not
		// either. The model learns of them (a read-only one may have run) from a [turn_aborted] note.
		turn.batch.abandon("the model's response overflowed its context window before this call finished; it was given up");
		const note = buildCarryOver(turn, { kind: "done", reason: "error", error: errorInfo(failure) });
		ctx.session.context.push(...note.messages);
		turn.outputsDelivered = true;
	}
	ctx.overflowRetried = true;
	ctx.overflow = errorInfo(failure);
	return { kind: "compacting", reason: "context" };
}

/** The output completed: its messages join the model context, and the turn is Case A from here. */
function completeTurn(ctx: LoopContext, turn: Turn): LoopState {
	turn.outputComplete = true;
	ctx.session.context.push(...turn.assistant);
	endRequest(ctx, turn.attempt, { status: "ok" });
	turn.batch.outputComplete();
	if (turn.batch.size > 0) return { kind: "executing", turn };
	return stopUnlessSteered(ctx);
}

import { addUsage, emptyUsage, makeMessage, newMessageId } from "../../messages/constructors.js";
import type { ModelMessage, RequestStatus } from "../../messages/omni-message.js";
import { failureFromUnknown, type ModelFailure } from "../../model/failure.js";
import type { ModelEvent } from "../../model/model-adapter.js";
import { ABORTED } from "../interruptible.js";
import type { LoopContext, LoopState } from "../loop-types.js";
import type { Turn } from "../turn.js";

/**
 * streaming: forward deltas as partial_* fragments and complete items as model messages; hand
 * each complete tool_call to the batch at once. At the stream's end: token_usage, then
 * request_end, without waiting for tools.
 */
export async function streaming(ctx: LoopContext): Promise<LoopState> {
	const turn = ctx.turn as Turn;
	const stream = turn.stream as AsyncIterator<ModelEvent>;
	for (;;) {
		let next: IteratorResult<ModelEvent> | typeof ABORTED;
		try {
			next = await ctx.interrupt.race(stream.next());
		} catch (error) {
			return failedRequest(ctx, failureFromUnknown(error));
		}
		if (next === ABORTED) return { kind: "done", reason: "user_abort" };
		if (next.done)
			return failedRequest(ctx, { class: "malformed", message: "the model stream ended without an outcome" });
		const event = next.value;
		if (event.type === "outcome") {
			const { outcome } = event;
			if (outcome.status === "aborted") return { kind: "done", reason: "user_abort" };
			if (outcome.status === "error") return failedRequest(ctx, outcome.failure);
			return completeTurn(ctx, turn);
		}
		onModelEvent(ctx, turn, event);
	}
}

/** Per streamed event: the hot path. No copies of what came before, one message per event. */
function onModelEvent(ctx: LoopContext, turn: Turn, event: Exclude<ModelEvent, { type: "outcome" }>): void {
	switch (event.type) {
		case "text_delta":
			turn.textId ??= newMessageId();
			turn.partialText += event.delta;
			ctx.emit({ id: turn.textId, ts: Date.now(), seq: 0, type: "partial_text", delta: event.delta });
			return;
		case "text":
			commit(ctx, turn, {
				id: turn.textId ?? newMessageId(),
				ts: Date.now(),
				seq: 0,
				type: "assistant_text",
				text: event.text,
			});
			turn.textId = undefined;
			turn.partialText = "";
			return;
		case "reasoning_delta":
			turn.reasoningId ??= newMessageId();
			turn.partialReasoning += event.delta;
			ctx.emit({ id: turn.reasoningId, ts: Date.now(), seq: 0, type: "partial_reasoning", delta: event.delta });
			return;
		case "reasoning": {
			const id = turn.reasoningId ?? newMessageId();
			const message: ModelMessage =
				event.providerMetadata === undefined
					? { id, ts: Date.now(), seq: 0, type: "reasoning", text: event.text }
					: {
							id,
							ts: Date.now(),
							seq: 0,
							type: "reasoning",
							text: event.text,
							providerMetadata: event.providerMetadata,
						};
			commit(ctx, turn, message);
			turn.reasoningId = undefined;
			turn.partialReasoning = "";
			return;
		}
		case "tool_call_delta": {
			let partial = turn.partialCalls.get(event.callId);
			if (partial === undefined) {
				partial = { id: newMessageId(), name: event.name, args: "" };
				turn.partialCalls.set(event.callId, partial);
			}
			partial.args += event.delta;
			ctx.emit({
				id: partial.id,
				ts: Date.now(),
				seq: 0,
				type: "partial_tool_call",
				callId: event.callId,
				name: event.name,
				delta: event.delta,
			});
			return;
		}
		case "tool_call": {
			const id = turn.partialCalls.get(event.callId)?.id ?? newMessageId();
			turn.partialCalls.delete(event.callId);
			const call = {
				id,
				ts: Date.now(),
				seq: 0,
				type: "tool_call",
				callId: event.callId,
				name: event.name,
				arguments: event.arguments,
			} as const;
			commit(ctx, turn, call);
			turn.batch.add(call);
			return;
		}
		case "usage":
			turn.usage = event.usage;
			return;
	}
}

function commit(ctx: LoopContext, turn: Turn, message: ModelMessage): void {
	turn.assistant.push(message);
	ctx.emit(message);
}

/** The output completed: its messages join the model context, and the turn is Case A from here. */
function completeTurn(ctx: LoopContext, turn: Turn): LoopState {
	turn.outputComplete = true;
	ctx.session.context.push(...turn.assistant);
	endRequest(ctx, turn, "ok");
	if (turn.batch.size > 0) return { kind: "executing" };
	// No tool calls: the Task ends, unless steering is waiting. The queue closes in the same
	// synchronous step, so a steer() that returned true is always delivered.
	if (ctx.steering.size > 0) return { kind: "thinking" };
	ctx.steering.close();
	return { kind: "done", reason: "model_stop" };
}

/** token_usage then request_end: how every request ends. */
function endRequest(ctx: LoopContext, turn: Turn, status: RequestStatus, failure?: ModelFailure): void {
	const usage = turn.usage ?? emptyUsage();
	addUsage(ctx.session.usage, usage);
	addUsage(ctx.taskUsage, usage);
	ctx.emit(makeMessage("token_usage", { request: usage, session: { ...ctx.session.usage } }));
	const end =
		failure === undefined
			? makeMessage("request_end", { status })
			: makeMessage("request_end", {
					status,
					error: {
						kind: failure.class,
						message: failure.message,
						...(failure.status === undefined ? {} : { status: failure.status }),
					},
				});
	ctx.emit(end);
}

/** The request failed: it ends with its status and the Task ends with an error. */
export function failedRequest(ctx: LoopContext, failure: ModelFailure): LoopState {
	if (ctx.interrupt.signal.aborted) return { kind: "done", reason: "user_abort" };
	const turn = ctx.turn as Turn;
	const status: RequestStatus =
		failure.class === "auth" ? "auth" : failure.class === "fatal" ? "failed" : failure.class;
	endRequest(ctx, turn, status, failure);
	return {
		kind: "done",
		reason: "error",
		error: {
			kind: failure.class,
			message: failure.message,
			...(failure.status === undefined ? {} : { status: failure.status }),
		},
	};
}

import { newMessageId } from "../../messages/constructors.js";
import type { ModelMessage, ToolCall } from "../../messages/omni-message.js";
import type { ModelEvent } from "../../model/model-adapter.js";
import type { LoopContext } from "../loop-types.js";
import { freshCallId } from "./call-ids.js";
import { StreamedText } from "./streamed-text.js";
import type { Turn } from "./turn.js";

/** A streamed model event: anything but the outcome that ends the stream. */
export type StreamEvent = Exclude<ModelEvent, { type: "outcome" }>;

/**
 * One streamed model event → the messages it makes. The hot path: per delta one small message
 * and a string append, no copies of what came before; `at` is the read's own clock reading. A
 * fragment carries the id of the complete message it becomes.
 */
export function onModelEvent(ctx: LoopContext, turn: Turn, event: StreamEvent, at: number): void {
	switch (event.type) {
		case "text_delta":
			turn.textId ??= newMessageId();
			turn.partialText.append(event.delta);
			ctx.out.partial({ id: turn.textId, ts: at, seq: 0, type: "partial_text", delta: event.delta });
			return;
		case "text":
			commit(ctx, turn, {
				id: turn.textId ?? newMessageId(),
				ts: at,
				seq: 0,
				type: "assistant_text",
				text: event.text,
			});
			turn.textId = undefined;
			turn.partialText.clear();
			return;
		case "reasoning_delta":
			turn.reasoningId ??= newMessageId();
			turn.partialReasoning.append(event.delta);
			ctx.out.partial({ id: turn.reasoningId, ts: at, seq: 0, type: "partial_reasoning", delta: event.delta });
			return;
		case "reasoning": {
			const message: ModelMessage = {
				id: turn.reasoningId ?? newMessageId(),
				ts: at,
				seq: 0,
				type: "reasoning",
				text: event.text,
			};
			if (event.providerMetadata !== undefined) message.providerMetadata = event.providerMetadata;
			commit(ctx, turn, message);
			turn.reasoningId = undefined;
			turn.partialReasoning.clear();
			return;
		}
		case "tool_call_delta": {
			if (turn.madeBefore(event.callId)) return;
			let partial = turn.partialCalls.get(event.callId);
			if (partial === undefined) {
				partial = {
					id: newMessageId(),
					callId: freshCallId(event.callId, ctx.session.callIds),
					name: event.name,
					args: new StreamedText(),
				};
				turn.partialCalls.set(event.callId, partial);
			}
			partial.args.append(event.delta);
			ctx.out.partial({
				id: partial.id,
				ts: at,
				seq: 0,
				type: "partial_tool_call",
				callId: partial.callId,
				name: event.name,
				delta: event.delta,
			});
			return;
		}
		case "tool_call":
			commitCall(ctx, turn, event, at);
			return;
		case "usage":
			turn.attempt.usage = event.usage;
			return;
	}
}

function commit(ctx: LoopContext, turn: Turn, message: ModelMessage): void {
	turn.assistant.push(message);
	ctx.out.emit(message);
}

/**
 * A complete call joins the turn and goes to the batch at once. A call id the Session has seen
 * before (some servers repeat them) gets a fresh one — taken at its first fragment, which carries
 * it too: a call id is executed at most once, and pairing needs ids to be unique. A reconnect's
 * response that streams again a call an earlier attempt of this turn already made (same id, tool
 * and arguments) is that call, not a new one: it is not committed again.
 */
function commitCall(
	ctx: LoopContext,
	turn: Turn,
	event: Extract<StreamEvent, { type: "tool_call" }>,
	at: number,
): void {
	if (turn.repeatsEarlier(event)) return;
	turn.madeNow(event);
	const partial = turn.partialCalls.get(event.callId);
	turn.partialCalls.delete(event.callId);
	const id = partial?.id ?? newMessageId();
	const callId = partial?.callId ?? freshCallId(event.callId, ctx.session.callIds);
	const call: ToolCall = {
		id,
		ts: at,
		seq: 0,
		type: "tool_call",
		callId,
		name: event.name,
		arguments: event.arguments,
	};
	if (event.providerMetadata !== undefined) call.providerMetadata = event.providerMetadata;
	commit(ctx, turn, call);
	turn.batch.add(call);
}

import { canonicalArguments } from "../../messages/canonical-arguments.js";
import type { ModelMessage, ToolCall } from "../../messages/omni-message.js";
import type { ModelRequest } from "../../model/model-adapter.js";
import type { ToolBatch } from "../batch/tool-batch.js";
import type { OpenRequest } from "./open-request.js";
import { StreamedText } from "./streamed-text.js";

/** A tool call still being streamed. */
export interface PartialCall {
	/** The id the complete tool_call message will carry. */
	id: string;
	/** The Session's id for the call (the model's, or a fresh one if the Session had it): its fragments and its tool_call carry the same. */
	callId: string;
	name: string;
	/** The arguments streamed so far (read only if the call never completes). */
	readonly args: StreamedText;
}

/**
 * One model request and what came of it. The assistant messages join the model context only when
 * the model's output completes; until then the turn is Case B of an interruption.
 */
export class Turn {
	/** Complete assistant messages of this turn, in stream order. */
	readonly assistant: ModelMessage[] = [];
	/** Text and reasoning streamed since their last complete message, and their message ids. */
	readonly partialText = new StreamedText();
	textId: string | undefined;
	readonly partialReasoning = new StreamedText();
	reasoningId: string | undefined;
	readonly partialCalls = new Map<string, PartialCall>();
	/** Set when the stream ended with an ok outcome: the turn's tool calls are committed (Case A). */
	outputComplete = false;
	/** The attempt in flight: its usage report and whether its request_end is owed. */
	attempt!: OpenRequest;
	/** Reconnects made for this turn; never reset within it. */
	reconnects = 0;
	/** Text streamed by failed attempts that never completed into a message. */
	readonly lostText: string[] = [];
	/** Reasoning streamed by failed attempts that never completed into a message. */
	readonly lostReasoning: string[] = [];
	/** Tool calls failed attempts cut off before they were complete (never run): name and arguments so far. */
	readonly lostCalls: { name: string; args: string }[] = [];
	/**
	 * The calls committed in this turn, by the model's id: the attempt (reconnect number) each came
	 * in, its tool and arguments. A list: attempts may give one id to different calls.
	 */
	private readonly modelCallIds = new Map<string, { attempt: number; name: string; arguments: string }[]>();

	constructor(
		/** 1 for the Task's first request. */
		readonly number: number,
		readonly batch: ToolBatch,
		/** The turn's original request; a reconnect re-sends it with a `[turn_retried]` block. */
		readonly request: ModelRequest,
	) {}

	/** True once the batch's outputs have joined the model context. */
	outputsDelivered = false;

	/**
	 * Puts the batch's outputs into the model context, in call order, once; the batch must be
	 * terminal. Until then an interruption re-sends them as carry-over (Case A).
	 */
	deliverOutputs(context: ModelMessage[]): void {
		if (this.outputsDelivered) return;
		context.push(...this.batch.outputsInCallOrder());
		this.outputsDelivered = true;
	}

	/** True when an earlier attempt of this turn already made a call the model called `modelCallId`. */
	madeBefore(modelCallId: string): boolean {
		return (this.modelCallIds.get(modelCallId) ?? []).some((made) => made.attempt < this.reconnects);
	}

	/**
	 * True when an earlier attempt of this turn made this very call (its id, tool and arguments):
	 * a reconnect's response streaming it again. A server that numbers ids per response may give
	 * a different call the same id: that one is new.
	 */
	repeatsEarlier(call: { callId: string; name: string; arguments: string }): boolean {
		const earlier = this.modelCallIds.get(call.callId)?.filter((made) => made.attempt < this.reconnects);
		// Most calls: no earlier attempt gave this id, and no arguments are parsed.
		if (earlier === undefined || earlier.length === 0) return false;
		const args = canonicalArguments(call.arguments);
		return earlier.some((made) => made.name === call.name && canonicalArguments(made.arguments) === args);
	}

	/** The current attempt made the call the model calls `callId`. */
	madeNow(call: { callId: string; name: string; arguments: string }): void {
		const made = this.modelCallIds.get(call.callId) ?? [];
		made.push({ attempt: this.reconnects, name: call.name, arguments: call.arguments });
		this.modelCallIds.set(call.callId, made);
	}

	/** A new attempt of the turn's request has started. */
	begin(attempt: OpenRequest): void {
		this.attempt = attempt;
	}

	/**
	 * Keeps what a failed attempt was streaming (text, reasoning, calls not yet complete) for the
	 * `[turn_retried]` block and a `[turn_aborted]` carry-over, then forgets it as streaming; the
	 * attempt's complete messages stay.
	 */
	keepPartial(): void {
		if (!this.partialText.empty) this.lostText.push(this.partialText.text);
		if (!this.partialReasoning.empty) this.lostReasoning.push(this.partialReasoning.text);
		for (const call of this.partialCalls.values()) this.lostCalls.push({ name: call.name, args: call.args.text });
		this.resetPartial();
	}

	/** Forgets what a failed attempt was streaming; its complete messages stay. */
	private resetPartial(): void {
		this.partialText.clear();
		this.textId = undefined;
		this.partialReasoning.clear();
		this.reasoningId = undefined;
		this.partialCalls.clear();
	}

	get calls(): readonly ToolCall[] {
		return this.batch.calls;
	}
}

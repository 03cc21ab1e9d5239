import type { ModelMessage, ToolCall } from "../../messages/omni-message.js";
import type { ModelRequest } from "../../model/model-adapter.js";
import type { ToolBatch } from "../batch/tool-batch.js";
import type { OpenRequest } from "./open-request.js";
import { StreamedText } from "./streamed-text.js";

/** A tool call still being streamed. */
export interface PartialCall {
	/** The id the complete tool_call message will carry. */
	id: string;
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
	/** The model's call ids committed in this turn, and the attempt (reconnect number) each came in. */
	private readonly modelCallIds = new Map<string, number>();

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

	/** True when an earlier attempt of this turn already made the call the model calls `modelCallId`. */
	madeBefore(modelCallId: string): boolean {
		const attempt = this.modelCallIds.get(modelCallId);
		return attempt !== undefined && attempt < this.reconnects;
	}

	/** The current attempt made the call the model calls `modelCallId`. */
	madeNow(modelCallId: string): void {
		this.modelCallIds.set(modelCallId, this.reconnects);
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

import type { ModelMessage, ToolCall, Usage } from "../messages/omni-message.js";
import type { ModelEvent } from "../model/model-adapter.js";
import type { ToolBatch } from "./tool-batch.js";

/** A tool call still being streamed. */
export interface PartialCall {
	/** The id the complete tool_call message will carry. */
	id: string;
	name: string;
	args: string;
}

/**
 * One model request and what came of it. The assistant messages join the model context only when
 * the model's output completes; until then the turn is Case B of an interruption.
 */
export class Turn {
	/** Complete assistant messages of this turn, in stream order. */
	readonly assistant: ModelMessage[] = [];
	/** Text and reasoning streamed since their last complete message, and their message ids. */
	partialText = "";
	textId: string | undefined;
	partialReasoning = "";
	reasoningId: string | undefined;
	readonly partialCalls = new Map<string, PartialCall>();
	/** Set when the stream ended with an ok outcome: the turn's tool calls are committed (Case A). */
	outputComplete = false;
	usage: Usage | undefined;
	stream: AsyncIterator<ModelEvent> | undefined;

	constructor(
		/** 1 for the Task's first request. */
		readonly number: number,
		readonly batch: ToolBatch,
	) {}

	get calls(): readonly ToolCall[] {
		return this.batch.calls;
	}
}

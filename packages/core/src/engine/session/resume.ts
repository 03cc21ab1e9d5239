import { toolCallOutput } from "../../messages/constructors.js";
import {
	isModelMessage,
	type ModelMessage,
	type OmniMessage,
	type ToolCall,
	type Usage,
} from "../../messages/omni-message.js";
import { ensurePairing } from "../pairing.js";

/** What a crash left of a call that had started: the model must not assume it did nothing, nor that it finished. */
export const CRASHED_WHILE_RUNNING =
	"[interrupted: the tool was interrupted by a crash or restart of the session while it ran; it may have partly run. It will not be run again: check its effects before retrying]";
/** A call the Trace shows never started (no tool_start was written ahead of it). */
export const CRASHED_BEFORE_START =
	"[interrupted: a crash or restart ended the session before this tool call started; it did not run]";

export interface RebuiltSession {
	context: ModelMessage[];
	/** The highest seq written in the file. */
	seq: number;
	/** The last `token_usage.session` of the file; undefined when it has none (just rotated). */
	usage: Usage | undefined;
	/** Turns recorded in this file (first attempts of requests). */
	turns: number;
	/** The last request's total tokens, for the `context` compaction trigger. */
	lastRequestTotal: number;
}

/**
 * Rebuilds the model context from one Trace file's messages. The Trace holds outputs in the
 * order they finished and no carry-over, and may be cut mid-turn (a crash): every call left
 * without an output gets an `interrupted` one saying whether it had started, and pairing puts
 * outputs in call order, so the first request after a resume is valid. No call is run again.
 */
export function rebuildFromTrace(messages: readonly OmniMessage[]): RebuiltSession {
	const model: ModelMessage[] = [];
	const started = new Set<string>();
	const answered = new Set<string>();
	let seq = 0;
	let usage: Usage | undefined;
	let turns = 0;
	let lastRequestTotal = 0;
	for (const message of messages) {
		if (message.seq > seq) seq = message.seq;
		if (isModelMessage(message)) {
			model.push(message);
			if (message.type === "tool_call_output") answered.add(message.callId);
		} else if (message.type === "tool_start") started.add(message.callId);
		else if (message.type === "token_usage") {
			usage = message.session;
			lastRequestTotal = message.request.total;
		} else if (message.type === "request_begin" && message.attempt === 0 && message.purpose === undefined) turns++;
	}
	for (const message of messages) {
		if (message.type !== "tool_call" || answered.has(message.callId)) continue;
		model.push(crashOutput(message, started.has(message.callId)));
		answered.add(message.callId);
	}
	return { context: ensurePairing(model).messages, seq, usage, turns, lastRequestTotal };
}

function crashOutput(call: ToolCall, started: boolean): ModelMessage {
	return toolCallOutput(call, started ? CRASHED_WHILE_RUNNING : CRASHED_BEFORE_START, "interrupted");
}

import { addUsage, emptyUsage } from "../../messages/constructors.js";
import { isModelMessage, type ModelMessage, type OmniMessage, type Usage } from "../../messages/omni-message.js";
import { ensurePairing } from "../pairing.js";

export interface RebuiltSession {
	context: ModelMessage[];
	/** The last seq written, so the resumed Session goes on from the next. */
	seq: number;
	usage: Usage;
	/** Turns recorded in this file (first attempts of requests). */
	turns: number;
	/** The last request's total tokens, for the `context` compaction trigger. */
	lastRequestTotal: number;
}

/**
 * Rebuilds the model context from one Trace file's messages. The Trace holds outputs in the
 * order they finished and no carry-over, and may be cut mid-turn: pairing puts outputs back in
 * call order and gives every call left without one a placeholder, so the first request after a
 * resume is valid.
 */
export function rebuildFromTrace(messages: readonly OmniMessage[]): RebuiltSession {
	const model: ModelMessage[] = [];
	let seq = 0;
	let sessionUsage: Usage | undefined;
	const summed = emptyUsage();
	let turns = 0;
	let lastRequestTotal = 0;
	for (const message of messages) {
		if (message.seq > seq) seq = message.seq;
		if (isModelMessage(message)) model.push(message);
		else if (message.type === "token_usage") {
			sessionUsage = message.session;
			addUsage(summed, message.request);
			lastRequestTotal = message.request.total;
		} else if (message.type === "request_begin" && message.attempt === 0 && message.purpose === undefined) turns++;
	}
	return { context: ensurePairing(model).messages, seq, usage: sessionUsage ?? summed, turns, lastRequestTotal };
}

import { toolCallOutput } from "../messages/constructors.js";
import type { ModelMessage, ToolCall, ToolCallOutput } from "../messages/omni-message.js";

/** A repair `ensurePairing` made. In the engine's own context any repair means a bug upstream. */
export type PairingRepair =
	| { kind: "missing_output"; callId: string; name: string }
	| { kind: "orphan_output"; callId: string }
	| { kind: "duplicate_output"; callId: string }
	| { kind: "duplicate_call"; callId: string }
	| { kind: "reordered" };

export const MISSING_OUTPUT = "[interrupted: no result was recorded for this tool call]";

export interface PairingResult {
	messages: ModelMessage[];
	repairs: PairingRepair[];
}

/**
 * The one place that checks tool_call ↔ tool_call_output pairing before a model request.
 *
 * The canonical shape, which every provider accepts: each run of assistant messages (reasoning,
 * text, calls) is followed, before the next user text or assistant run, by exactly one output per
 * call, in call order. An output with no call before it is dropped, a second output for a call is
 * dropped, a call with no output gets a placeholder, outputs out of place are moved to their
 * call's group. Returns the same array, and no repairs, when the messages are already canonical.
 */
export function ensurePairing(messages: ModelMessage[]): PairingResult {
	return isCanonical(messages, 0) ? { messages, repairs: [] } : repairPairing(messages);
}

/** `ensurePairing` the long way: builds the canonical order and lists what it had to change. */
export function repairPairing(messages: ModelMessage[]): PairingResult {
	const repairs: PairingRepair[] = [];
	const outputs = collectOutputs(messages, repairs);
	const result: ModelMessage[] = [];
	const seenCalls = new Set<string>();
	let group: ToolCall[] = [];
	let inAssistantRun = false;

	const closeGroup = () => {
		for (const call of group) {
			const output = outputs.get(call.callId);
			if (output !== undefined) {
				result.push(output);
				continue;
			}
			repairs.push({ kind: "missing_output", callId: call.callId, name: call.name });
			result.push(toolCallOutput(call, MISSING_OUTPUT, "interrupted"));
		}
		group = [];
	};

	for (const message of messages) {
		switch (message.type) {
			case "reasoning":
			case "assistant_text":
			case "tool_call":
				if (!inAssistantRun) {
					closeGroup();
					inAssistantRun = true;
				}
				if (message.type === "tool_call") {
					if (seenCalls.has(message.callId)) {
						repairs.push({ kind: "duplicate_call", callId: message.callId });
						continue;
					}
					seenCalls.add(message.callId);
					group.push(message);
				}
				result.push(message);
				break;
			case "tool_call_output":
				inAssistantRun = false; // placed with its call's group, below
				break;
			case "user_text":
				closeGroup();
				inAssistantRun = false;
				result.push(message);
				break;
		}
	}
	closeGroup();

	if (repairs.length === 0 && !sameMessages(result, messages)) repairs.push({ kind: "reordered" });
	return repairs.length === 0 ? { messages, repairs } : { messages: result, repairs };
}

/** The first output of each call that has a call before it; the rest are recorded as repairs. */
function collectOutputs(messages: readonly ModelMessage[], repairs: PairingRepair[]): Map<string, ToolCallOutput> {
	const calls = new Set<string>();
	const outputs = new Map<string, ToolCallOutput>();
	for (const message of messages) {
		if (message.type === "tool_call") calls.add(message.callId);
		else if (message.type === "tool_call_output") {
			if (!calls.has(message.callId)) repairs.push({ kind: "orphan_output", callId: message.callId });
			else if (outputs.has(message.callId)) repairs.push({ kind: "duplicate_output", callId: message.callId });
			else outputs.set(message.callId, message);
		}
	}
	return outputs;
}

/**
 * Whether `messages` from `from` on are already in the canonical shape, checked in one pass that
 * builds no new context: the common case (the engine's own context), once per request. Exactly
 * the shapes the long way (`repairPairing`) leaves alone; anything else goes through it.
 */
export function isCanonical(messages: readonly ModelMessage[], from: number): boolean {
	const seen = new Set<string>();
	/** The call ids of the open group, and how many of them have their output so far. */
	let group: string[] = [];
	let answered = 0;
	let inAssistantRun = false;
	for (let i = from; i < messages.length; i++) {
		const message = messages[i] as ModelMessage;
		switch (message.type) {
			case "reasoning":
			case "assistant_text":
			case "tool_call":
				if (!inAssistantRun) {
					if (answered < group.length) return false;
					if (group.length > 0) group = [];
					answered = 0;
					inAssistantRun = true;
				}
				if (message.type === "tool_call") {
					if (seen.has(message.callId)) return false;
					seen.add(message.callId);
					group.push(message.callId);
				}
				break;
			case "tool_call_output":
				inAssistantRun = false;
				if (group[answered] !== message.callId) return false;
				answered++;
				break;
			case "user_text":
				if (answered < group.length) return false;
				inAssistantRun = false;
				break;
		}
	}
	return answered === group.length;
}

function sameMessages(a: readonly ModelMessage[], b: readonly ModelMessage[]): boolean {
	if (a.length !== b.length) return false;
	for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
	return true;
}

/**
 * `ensurePairing` for a context that only grows between requests: the part already found
 * canonical (every call answered, so nothing is left open) is not checked again, which keeps the
 * check linear over a long Session. A context array that was replaced (compaction, clearing) is
 * checked whole.
 */
export class IncrementalPairing {
	private checked: readonly ModelMessage[] | undefined;
	private length = 0;

	run(messages: ModelMessage[]): PairingResult {
		const from = this.checked === messages && this.length <= messages.length ? this.length : 0;
		if (isCanonical(messages, from)) {
			this.checked = messages;
			this.length = messages.length;
			return { messages, repairs: [] };
		}
		const result = repairPairing(from === 0 ? messages : messages.slice(from));
		const whole = result.repairs.length === 0 ? messages : [...messages.slice(0, from), ...result.messages];
		this.checked = whole;
		this.length = whole.length;
		return { messages: whole, repairs: result.repairs };
	}
}

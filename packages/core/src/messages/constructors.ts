import { randomBytes } from "node:crypto";
import type {
	AssistantText,
	JsonObject,
	OmniMessage,
	Origin,
	Reasoning,
	ToolCall,
	ToolCallOutput,
	ToolCallStatus,
	Usage,
	UserText,
} from "./omni-message.js";

/**
 * Message ids: a random prefix per process and a counter. Unique like a UUID (the prefix has 96
 * random bits), at a fraction of the cost — every streamed message gets one.
 */
const ID_PREFIX = randomBytes(12).toString("base64url");
let idCounter = 0;

export function newMessageId(): string {
	idCounter++;
	return `${ID_PREFIX}${idCounter.toString(36)}`;
}

/** The fields a caller gives for a message of type T; the rest (id, ts, seq) is filled in. */
export type MessageFields<T extends OmniMessage> = Omit<T, "id" | "ts" | "seq" | "type">;

/** Makes any OmniMessage from its type and fields. `seq` stays 0 until a Session emits it. */
export function makeMessage<K extends OmniMessage["type"]>(
	type: K,
	fields: MessageFields<Extract<OmniMessage, { type: K }>>,
): Extract<OmniMessage, { type: K }> {
	return { id: newMessageId(), ts: Date.now(), seq: 0, type, ...fields } as Extract<OmniMessage, { type: K }>;
}

/**
 * A copy of `message` with `origin` (a nested Session's message, as its parent forwards it). Made
 * with Object.assign onto a fresh object, not `{ ...message, origin }`: on Node 20's V8 an object
 * made by a spread and given a property its source lacks gets a hidden class of its own, so every
 * forwarded delta had one and each layer that read them missed V8's inline caches
 * (docs/performance.md).
 */
export function withOrigin<T extends OmniMessage>(message: T, origin: Origin): T {
	const tagged: T = Object.assign({}, message);
	tagged.origin = origin;
	return tagged;
}

/** A person's message, ready for `session.run([userText("…")])`. */
export function userText(text: string): UserText {
	return { id: newMessageId(), ts: Date.now(), seq: 0, type: "user_text", text };
}

export function assistantText(text: string): AssistantText {
	return { id: newMessageId(), ts: Date.now(), seq: 0, type: "assistant_text", text };
}

export function reasoning(text: string, providerMetadata?: JsonObject): Reasoning {
	const message: Reasoning = { id: newMessageId(), ts: Date.now(), seq: 0, type: "reasoning", text };
	if (providerMetadata !== undefined) message.providerMetadata = providerMetadata;
	return message;
}

/** `args` may be the JSON text or a value to serialize. */
export function toolCall(callId: string, name: string, args: string | JsonObject = {}): ToolCall {
	return {
		id: newMessageId(),
		ts: Date.now(),
		seq: 0,
		type: "tool_call",
		callId,
		name,
		arguments: typeof args === "string" ? args : JSON.stringify(args),
	};
}

export function toolCallOutput(
	call: { callId: string; name: string },
	output: string,
	status: ToolCallStatus = "ok",
): ToolCallOutput {
	return {
		id: newMessageId(),
		ts: Date.now(),
		seq: 0,
		type: "tool_call_output",
		callId: call.callId,
		name: call.name,
		output,
		status,
	};
}

export const DENIED_OUTPUT = "Tool call denied by user.";

/** A call nobody decided before the host's deadline: denied, and the model is told why. */
export const UNANSWERED_OUTPUT = "Tool call denied: no one answered the approval request in time.";

/**
 * The output of a call the approval policy refused (a person was not asked): the model must not
 * read it as a person's answer. `needsPerson`: the policy says ask, but this run has no `approve`.
 */
export function policyDeniedOutput(name: string, needsPerson: boolean): string {
	return needsPerson
		? `Tool call refused by the approval policy: ${name} needs a person's approval, and no one can be asked in this run.`
		: `Tool call refused by the approval policy: ${name} is not allowed for this agent.`;
}

/** A call of a sandboxed tool that cannot be sandboxed here, with no person to ask. */
export function unsandboxedDeniedOutput(name: string, why: string): string {
	return `Tool call refused: ${name} needs a person's approval, and no one can be asked in this run: ${why}.`;
}

export function deniedOutput(call: { callId: string; name: string }): ToolCallOutput {
	return toolCallOutput(call, DENIED_OUTPUT, "denied");
}

/** A Usage of zero tokens. */
export function emptyUsage(): Usage {
	return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 0 };
}

/** Adds `more` into `into` in place. */
export function addUsage(into: Usage, more: Usage): Usage {
	into.input += more.input;
	into.output += more.output;
	into.cacheRead += more.cacheRead;
	into.cacheWrite += more.cacheWrite;
	into.reasoning += more.reasoning;
	into.total += more.total;
	return into;
}

/** Fills the missing fields of a partial usage report; total defaults to input + output. */
export function toUsage(partial: Partial<Usage>): Usage {
	const input = partial.input ?? 0;
	const output = partial.output ?? 0;
	return {
		input,
		output,
		cacheRead: partial.cacheRead ?? 0,
		cacheWrite: partial.cacheWrite ?? 0,
		reasoning: partial.reasoning ?? 0,
		total: partial.total ?? input + output,
	};
}

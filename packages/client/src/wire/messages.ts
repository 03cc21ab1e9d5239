import { z } from "zod";

/**
 * The OmniMessage union on the wire (docs/protocol.md, Messages). Core's types
 * (`@omniloop/core`'s OmniMessage) are the source: test/wire-types.test.ts checks that what these
 * schemas infer is exactly them.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export interface JsonObject {
	[key: string]: JsonValue;
}

export const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
	z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);
const jsonObject: z.ZodType<JsonObject> = z.record(z.string(), jsonValue);

export const origin = z.object({ sessionId: z.string(), agentId: z.string(), parentCallId: z.string() });

const base = { id: z.string(), ts: z.number(), seq: z.number(), origin: origin.optional() };

export const usage = z.object({
	input: z.number(),
	output: z.number(),
	cacheRead: z.number(),
	cacheWrite: z.number(),
	reasoning: z.number(),
	total: z.number(),
});

export const errorInfo = z.object({
	kind: z.string(),
	message: z.string(),
	status: z.number().optional(),
	code: z.string().optional(),
});

export const toolCallStatus = z.enum(["ok", "error", "denied", "interrupted"]);
export const requestStatus = z.enum(["ok", "timeout", "malformed", "failed", "auth", "aborted"]);
export const doneReason = z.enum([
	"model_stop",
	"max_turns",
	"user_abort",
	"error",
	"budget_exceeded",
	"loop_detected",
]);
const checkpointReason = z.enum(["turn", "restore"]);
export const instructionFile = z.object({ path: z.string(), bytes: z.number(), truncated: z.boolean() });
export const skippedFile = z.object({ path: z.string(), bytes: z.number() });

const message = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
	z.object({ ...base, type: z.literal(type), ...shape });

export const userText = message("user_text", {
	text: z.string(),
	/** A steer: what the person steered with; `text` is it wrapped for the model. */
	steer: z.string().optional(),
});
export const assistantText = message("assistant_text", { text: z.string() });
export const reasoning = message("reasoning", { text: z.string(), providerMetadata: jsonObject.optional() });
export const toolCall = message("tool_call", {
	callId: z.string(),
	name: z.string(),
	arguments: z.string(),
	providerMetadata: jsonObject.optional(),
});
export const toolCallOutput = message("tool_call_output", {
	callId: z.string(),
	name: z.string(),
	output: z.string(),
	status: toolCallStatus,
});
export const partialText = message("partial_text", { delta: z.string() });
export const partialReasoning = message("partial_reasoning", { delta: z.string() });
export const partialToolCall = message("partial_tool_call", {
	callId: z.string(),
	name: z.string(),
	delta: z.string(),
});
export const requestBegin = message("request_begin", {
	turn: z.number(),
	attempt: z.number(),
	purpose: z.literal("compaction").optional(),
});
export const requestEnd = message("request_end", {
	status: requestStatus,
	retry_in_ms: z.number().optional(),
	attempt: z.number().optional(),
	error: errorInfo.optional(),
});
export const tokenUsage = message("token_usage", { request: usage, session: usage, model: z.string().optional() });
export const confirmationRequired = message("confirmation_required", {
	correlationId: z.string(),
	callId: z.string(),
	name: z.string(),
	arguments: z.string(),
	unsandboxed: z.string().optional(),
});
export const approvalDecision = message("approval_decision", {
	callId: z.string(),
	name: z.string(),
	decision: z.enum(["allow", "deny"]),
	by: z.enum(["policy", "user", "always", "timeout"]),
	correlationId: z.string().optional(),
});
export const toolStart = message("tool_start", { callId: z.string(), name: z.string() });
export const toolProgress = message("tool_progress", { callId: z.string(), name: z.string(), progress: z.string() });
export const abort = message("abort", { carryOver: z.enum(["A", "B", "none"]) });
export const compactionBegin = message("compaction_begin", {
	reason: z.enum(["context", "turns", "manual"]),
	mode: z.enum(["summarize", "discard"]),
});
export const compactionEnd = message("compaction_end", {
	status: z.enum(["ok", "failed"]),
	error: errorInfo.optional(),
});
export const instructionsLoaded = message("instructions_loaded", { files: z.array(instructionFile), text: z.string() });
export const checkpointCreated = message("checkpoint_created", {
	checkpointId: z.string(),
	reason: checkpointReason,
	skipped: z.array(skippedFile),
});
export const checkpointFailed = message("checkpoint_failed", { reason: checkpointReason, error: errorInfo });
export const checkpointRestored = message("checkpoint_restored", {
	checkpointId: z.string(),
	before: z.string(),
	restored: z.array(z.string()),
	conflicts: z.array(z.string()),
});
export const sessionRewound = message("session_rewound", { toSeq: z.number() });
export const done = message("done", {
	reason: doneReason,
	usage,
	sessionUsage: usage,
	error: errorInfo.optional(),
});

export const omniMessage = z.discriminatedUnion("type", [
	userText,
	assistantText,
	reasoning,
	toolCall,
	toolCallOutput,
	partialText,
	partialReasoning,
	partialToolCall,
	requestBegin,
	requestEnd,
	tokenUsage,
	confirmationRequired,
	approvalDecision,
	toolStart,
	toolProgress,
	abort,
	compactionBegin,
	compactionEnd,
	instructionsLoaded,
	checkpointCreated,
	checkpointFailed,
	checkpointRestored,
	sessionRewound,
	done,
]);

export type Origin = z.infer<typeof origin>;
export type Usage = z.infer<typeof usage>;
export type ErrorInfo = z.infer<typeof errorInfo>;
export type ToolCallStatus = z.infer<typeof toolCallStatus>;
export type RequestStatus = z.infer<typeof requestStatus>;
export type DoneReason = z.infer<typeof doneReason>;
export type InstructionFile = z.infer<typeof instructionFile>;
export type OmniMessage = z.infer<typeof omniMessage>;
export type OmniMessageType = OmniMessage["type"];
export type MessageOf<T extends OmniMessageType> = Extract<OmniMessage, { type: T }>;

/**
 * The OmniMessage union: everything a Session emits, and everything a Trace holds.
 *
 * Contract for every message: plain JSON (no class instances, no undefined inside arrays), so a
 * message survives `JSON.stringify` → `JSON.parse` unchanged.
 */

/** Where a message came from when a subagent's stream is forwarded into its parent's. */
export interface Origin {
	sessionId: string;
	agentId: string;
	parentCallId: string;
}

/** What every OmniMessage has: its id, time, seq and (forwarded from a subagent) origin. */
export interface MessageBase {
	/** Unique id. A partial fragment carries the id of the complete message it becomes. */
	id: string;
	/** Milliseconds since the epoch when the message was made. */
	ts: number;
	/**
	 * Per-Session sequence number, assigned when the Session emits the message: it grows by one
	 * with each message, across Tasks and Trace rotations. 0 means "not emitted yet".
	 */
	seq: number;
	origin?: Origin;
}

// ── model messages: enter the model context and the Trace ────────────────────────────────────

/** A person's message (a steer too: it arrives wrapped in `[user_steering]`). */
export interface UserText extends MessageBase {
	type: "user_text";
	/** What the model reads. */
	text: string;
	/**
	 * Set when this text delivers steering (docs/protocol.md, Messages): what the person steered
	 * with, as they wrote it; `text` is it wrapped as `[user_steering]` for the model. A Trace
	 * written before this field holds only the wrapped text: reading it sets the field
	 * (messages/steer.ts).
	 */
	steer?: string;
}

/** The model's answer text, complete. */
export interface AssistantText extends MessageBase {
	type: "assistant_text";
	text: string;
}

/** The model's reasoning, complete, with what the provider needs back. */
export interface Reasoning extends MessageBase {
	type: "reasoning";
	text: string;
	/** Provider data that must travel back with the reasoning (signatures, encrypted content). */
	providerMetadata?: JsonObject;
}

/** A tool call the model made, complete: it gets exactly one approval_decision and one tool_call_output. */
export interface ToolCall extends MessageBase {
	type: "tool_call";
	callId: string;
	name: string;
	/** The arguments exactly as the model wrote them (JSON text), so a request re-sends them byte for byte. */
	arguments: string;
	/** Provider data that must travel back with the call (e.g. Gemini's thought signature). */
	providerMetadata?: JsonObject;
}

/** How a tool call ended: ran (`ok`, `error`), `denied`, or cut off (`interrupted`). */
export type ToolCallStatus = "ok" | "error" | "denied" | "interrupted";

/** A tool call's one output: its result, a denial, or an interruption. */
export interface ToolCallOutput extends MessageBase {
	type: "tool_call_output";
	callId: string;
	name: string;
	output: string;
	status: ToolCallStatus;
}

/** The messages that enter the model context and the Trace. */
export type ModelMessage = UserText | AssistantText | Reasoning | ToolCall | ToolCallOutput;

// ── partial fragments: live only, never in the Trace; deltas only ──────────────────────────────

/** A delta of answer text while it streams (live only, never in the Trace). */
export interface PartialText extends MessageBase {
	type: "partial_text";
	delta: string;
}

/** A delta of reasoning while it streams (live only, never in the Trace). */
export interface PartialReasoning extends MessageBase {
	type: "partial_reasoning";
	delta: string;
}

/** A delta of a tool call's arguments while they stream (live only, never in the Trace). */
export interface PartialToolCall extends MessageBase {
	type: "partial_tool_call";
	callId: string;
	name: string;
	/** A fragment of the arguments' JSON text. */
	delta: string;
}

/** The live fragments: deltas of a message still streaming, never in the Trace. */
export type PartialMessage = PartialText | PartialReasoning | PartialToolCall;

// ── events ────────────────────────────────────────────────────────────────────────────────────

/** Token counts, of one request or summed over a Task or a Session. */
export interface Usage {
	/** Every input token, cached ones included. */
	input: number;
	/** Every output token, reasoning included. */
	output: number;
	cacheRead: number;
	cacheWrite: number;
	reasoning: number;
	/** input + output. */
	total: number;
}

/** How a model request ended. */
export type RequestStatus = "ok" | "timeout" | "malformed" | "failed" | "auth" | "aborted";

/** Why a Task ended (`done.reason`). */
export type DoneReason = "model_stop" | "max_turns" | "user_abort" | "error" | "budget_exceeded" | "loop_detected";

/** What started a compaction: the context's size, the turn count, or a person. */
export type CompactionReason = "context" | "turns" | "manual";
/** How a compaction replaces the context: with a summary, or with nothing. */
export type CompactionMode = "summarize" | "discard";

/** An error as it travels in an event: plain JSON. */
export interface ErrorInfo {
	/** The error's class: for model failures one of auth, timeout, malformed, fatal. */
	kind: string;
	message: string;
	status?: number;
	/**
	 * What failed, where it is known: the provider's error code, or `connection_refused` /
	 * `unknown_host` when the server could not be reached (a refused connection is retried as a
	 * timeout is, but it is no timeout and is not to be called one).
	 */
	code?: string;
}

/** A model request (an attempt of a turn) is sent. */
export interface RequestBegin extends MessageBase {
	type: "request_begin";
	/** The turn number within the Task, from 1. */
	turn: number;
	/** 0 for the first try of a turn, k for its k-th reconnect. */
	attempt: number;
	/** Set for a compaction's request (its `turn` is the turn it follows). */
	purpose?: "compaction";
}

/** A model request ended, ok or not; a reconnect says how long it waits. */
export interface RequestEnd extends MessageBase {
	type: "request_end";
	status: RequestStatus;
	/** The planned wait before the next attempt, when the engine will reconnect. */
	retry_in_ms?: number;
	/** Which reconnect the failure leads to (1 = the first), when the engine will reconnect. */
	attempt?: number;
	error?: ErrorInfo;
}

/** A request's usage and the Session's so far; comes just before its `request_end`. */
export interface TokenUsage extends MessageBase {
	type: "token_usage";
	request: Usage;
	session: Usage;
	/**
	 * The id of the model that answered (`ModelAdapter.id`): a subagent's forwarded usage names its
	 * own model, not its parent's. Absent in Traces written before it was recorded.
	 */
	model?: string;
}

/** How a tool call was decided (allow or deny) and by whom; one per call, in call order. */
export interface ApprovalDecision extends MessageBase {
	type: "approval_decision";
	callId: string;
	name: string;
	decision: "allow" | "deny";
	/**
	 * Who decided: the agent's approval policy, a person (the host's `approve`), a person's earlier
	 * "always" for this tool in the Session (an allow; nobody was asked, no `confirmation_required`
	 * came before it), or nobody in time (the host's deadline for a person's answer passed: a deny).
	 */
	by: "policy" | "user" | "always" | "timeout";
	/** Set when a person was asked: the `correlationId` of the `confirmation_required` it answers. */
	correlationId?: string;
}

/**
 * A call waits on a person: emitted (and written to the Trace) just before the host's `approve`
 * is asked about it. Exactly one `approval_decision` with the same `correlationId` follows —
 * unless the Task is aborted first, when the question is void.
 */
export interface ConfirmationRequired extends MessageBase {
	type: "confirmation_required";
	correlationId: string;
	callId: string;
	name: string;
	arguments: string;
	/**
	 * Set when the call would run without the OS sandbox its agent is configured for (none is
	 * available on this machine): why, for the person deciding. Such a call is asked about whatever
	 * the policy, `--yes` or an "always" says (docs/sandbox.md).
	 */
	unsandboxed?: string;
}

/** A tool call began to run. */
export interface ToolStart extends MessageBase {
	type: "tool_start";
	callId: string;
	name: string;
}

/** A running tool call's progress note. */
export interface ToolProgress extends MessageBase {
	type: "tool_progress";
	callId: string;
	name: string;
	progress: string;
}

/** The Task was aborted; only its `done` follows. */
export interface Abort extends MessageBase {
	type: "abort";
	/** Where the Task was when the signal fired: after the model's output completed (A) or during it (B). */
	carryOver: "A" | "B" | "none";
}

/** A compaction began. */
export interface CompactionBegin extends MessageBase {
	type: "compaction_begin";
	reason: CompactionReason;
	mode: CompactionMode;
}

/** A compaction ended, ok or failed; ok rotates the Trace to a new file. */
export interface CompactionEnd extends MessageBase {
	type: "compaction_end";
	status: "ok" | "failed";
	error?: ErrorInfo;
}

/** The Task ended: exactly one per Task, last, with its reason and usage. */
export interface Done extends MessageBase {
	type: "done";
	reason: DoneReason;
	/** Tokens used by this Task. */
	usage: Usage;
	/** Tokens used by the Session so far, this Task included. */
	sessionUsage: Usage;
	error?: ErrorInfo;
}

/** One AGENTS.md a Session read (see docs/project-instructions.md). */
export interface InstructionFileInfo {
	path: string;
	/** Its size on disk. */
	bytes: number;
	/** Cut to the size limit, with a note saying so in the text. */
	truncated: boolean;
}

/**
 * The project instructions were read again (a reload the person asked for): from the next
 * request on, the system prompt ends with `text`. Kept in the Trace so a resume sends the same bytes.
 */
export interface InstructionsLoaded extends MessageBase {
	type: "instructions_loaded";
	files: InstructionFileInfo[];
	text: string;
}

/** Why a checkpoint of the workspace was made. */
export type CheckpointReason = "turn" | "restore";

/** A file left out of a checkpoint: bigger than `checkpoints.maxFileBytes`. */
export interface SkippedFile {
	path: string;
	bytes: number;
}

/** The workspace was checkpointed: before a turn's first change, or before a restore (see docs/checkpoints.md). */
export interface CheckpointCreated extends MessageBase {
	type: "checkpoint_created";
	checkpointId: string;
	reason: CheckpointReason;
	skipped: SkippedFile[];
}

/** A checkpoint could not be made (the turn goes on; its changes cannot be undone). */
export interface CheckpointFailed extends MessageBase {
	type: "checkpoint_failed";
	reason: CheckpointReason;
	error: ErrorInfo;
}

/** The workspace's files were restored to a checkpoint; `before` holds them as they were. */
export interface CheckpointRestored extends MessageBase {
	type: "checkpoint_restored";
	checkpointId: string;
	/** The checkpoint made just before the restore: restoring it undoes the restore. */
	before: string;
	/** Paths written or deleted, relative to the workspace. */
	restored: string[];
	/** Paths changed outside the agent since it last changed them: kept as they are (no `overwrite`). */
	conflicts: string[];
}

/**
 * The conversation went back to before the person's message `toSeq`: every model message from
 * it on is out of the context (they stay in the Trace, which is append-only).
 */
export interface SessionRewound extends MessageBase {
	type: "session_rewound";
	toSeq: number;
}

/** The events: what happened in a Task besides the model messages. */
export type EventMessage =
	| RequestBegin
	| RequestEnd
	| TokenUsage
	| ConfirmationRequired
	| ApprovalDecision
	| ToolStart
	| ToolProgress
	| Abort
	| CompactionBegin
	| CompactionEnd
	| InstructionsLoaded
	| CheckpointCreated
	| CheckpointFailed
	| CheckpointRestored
	| SessionRewound
	| Done;

/** Everything a Session emits and a Trace holds, discriminated on `type` (docs/protocol.md). */
export type OmniMessage = ModelMessage | PartialMessage | EventMessage;
/** The `type` of every OmniMessage. */
export type OmniMessageType = OmniMessage["type"];

/** Any plain JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
/** A plain JSON object. */
export interface JsonObject {
	[key: string]: JsonValue;
}

const MODEL_TYPES: ReadonlySet<string> = new Set([
	"user_text",
	"assistant_text",
	"reasoning",
	"tool_call",
	"tool_call_output",
]);
const PARTIAL_TYPES: ReadonlySet<string> = new Set(["partial_text", "partial_reasoning", "partial_tool_call"]);

/** Whether the message enters the model context (and the Trace). */
export function isModelMessage(message: OmniMessage): message is ModelMessage {
	return MODEL_TYPES.has(message.type);
}

/** Whether the message is a live fragment (never in the Trace). */
export function isPartialMessage(message: OmniMessage): message is PartialMessage {
	return PARTIAL_TYPES.has(message.type);
}

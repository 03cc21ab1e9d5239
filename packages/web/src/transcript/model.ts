import type { ErrorInfo, ToolCallStatus } from "@omniloop/client";

/** What a chat shows, built from a Session's messages by `applyMessages`. */

export type ToolState = "pending" | "awaiting_approval" | "running" | ToolCallStatus;

export interface UserItem {
	kind: "user";
	key: string;
	/** The message's seq: what "Rewind to here" and "Fork from here" name. */
	seq: number;
	text: string;
	/** Typed while the agent worked: a user text with `steer`. */
	steer: boolean;
	/**
	 * Not a person's message: a note of the engine's or the server's, its whole text one marker
	 * block (`[context_summary]…`, `[turn_aborted]…`): its tag, and `text` is the block's body.
	 */
	note?: string;
	/** A subagent's Task: the prompt its parent's call gave it (no rewind or fork to it). */
	delegated?: boolean;
}

export interface AssistantItem {
	kind: "assistant";
	key: string;
	text: string;
	streaming: boolean;
	/**
	 * Cut off by a Stop or an error while it streamed: shown, but no answer of the history (the
	 * Trace records no partial output, so a reload does not show it).
	 */
	stopped?: boolean;
}

export interface ReasoningItem {
	kind: "reasoning";
	key: string;
	text: string;
	streaming: boolean;
	/**
	 * Cut off by a Stop or an error while it streamed: shown, but no answer of the history (the
	 * Trace records no partial output, so a reload does not show it).
	 */
	stopped?: boolean;
}

export interface ToolItem {
	kind: "tool";
	key: string;
	callId: string;
	name: string;
	arguments: string;
	state: ToolState;
	/** The last progress lines a running tool reported. */
	progress: string[];
	output: string | undefined;
	/** Keys of the items a subagent started by this call produced (by `origin.parentCallId`). */
	children: string[];
	decidedBy?: "policy" | "user" | "always" | "timeout";
}

export interface NoticeItem {
	kind: "notice";
	key: string;
	tone: "info" | "warn" | "error";
	text: string;
}

/** A checkpoint of the workspace before a turn's changes: "Undo changes" restores it. */
export interface CheckpointItem {
	kind: "checkpoint";
	key: string;
	checkpointId: string;
	/** Files left out of it (too big). */
	skipped: string[];
}

/** A restore done: "Undo this restore" goes back to `before`; conflicts may be overwritten after all. */
export interface RestoredItem {
	kind: "restored";
	key: string;
	checkpointId: string;
	/** The checkpoint made just before the restore. */
	before: string;
	restored: string[];
	/** Files changed outside the agent since the checkpoint, kept as they were. */
	conflicts: string[];
}

export type Item = UserItem | AssistantItem | ReasoningItem | ToolItem | NoticeItem | CheckpointItem | RestoredItem;

export interface PendingApproval {
	correlationId: string;
	callId: string;
	name: string;
	arguments: string;
	/** Why the call would run without its sandbox; the card says so (docs/sandbox.md). */
	unsandboxed?: string;
	/** The seq of its `confirmation_required` (a Session's question; a workflow's has none). */
	seq?: number;
}

export interface RetryWait {
	/** When the next attempt starts (ms since the epoch, from the message's own time). */
	at: number;
	/** Which reconnect it is (1 = the first). */
	attempt: number;
	status: string;
	error?: ErrorInfo;
}

export interface Transcript {
	/** The highest seq applied: the stream resumes after it. */
	lastSeq: number;
	/** The seq of each top-level item's first message, for a rewind (which drops the items from a seq on). */
	seqOf: Record<string, number>;
	/** Top-level items in order; a subagent's items sit in their tool card's `children`. */
	order: string[];
	items: Record<string, Item>;
	/** Asked and not yet decided, in call order. */
	pending: PendingApproval[];
	retry: RetryWait | undefined;
	/** A Task runs (between its first message and its `done`). */
	running: boolean;
	compacting: boolean;
	/** The last model request's context tokens (`token_usage.request.total`), for the gauge. */
	contextTokens: number | undefined;
}

export const EMPTY_TRANSCRIPT: Transcript = {
	lastSeq: 0,
	seqOf: {},
	order: [],
	items: {},
	pending: [],
	retry: undefined,
	running: false,
	compacting: false,
	contextTokens: undefined,
};

/**
 * The OmniMessage union as it arrives over HTTP (docs/protocol.md §4). The web app speaks only the server's
 * HTTP API, so these are its own copy of the wire shapes, not an import from the engine.
 */

export interface Origin {
	sessionId: string;
	agentId: string;
	parentCallId: string;
}

interface Base {
	id: string;
	ts: number;
	seq: number;
	origin?: Origin;
}

export interface Usage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	reasoning: number;
	total: number;
}

export interface ErrorInfo {
	kind: string;
	message: string;
	status?: number;
}

export type ToolStatus = "ok" | "error" | "denied" | "interrupted";
export type RequestStatus = "ok" | "timeout" | "malformed" | "failed" | "auth" | "aborted";
export type DoneReason = "model_stop" | "max_turns" | "user_abort" | "error" | "budget_exceeded" | "loop_detected";

export type OmniMessage = Base &
	(
		| { type: "user_text"; text: string }
		| { type: "assistant_text"; text: string }
		| { type: "reasoning"; text: string }
		| { type: "tool_call"; callId: string; name: string; arguments: string }
		| { type: "tool_call_output"; callId: string; name: string; output: string; status: ToolStatus }
		| { type: "partial_text"; delta: string }
		| { type: "partial_reasoning"; delta: string }
		| { type: "partial_tool_call"; callId: string; name: string; delta: string }
		| { type: "request_begin"; turn: number; attempt: number; purpose?: "compaction" }
		| { type: "request_end"; status: RequestStatus; retry_in_ms?: number; attempt?: number; error?: ErrorInfo }
		| { type: "token_usage"; request: Usage; session: Usage }
		| {
				type: "confirmation_required";
				correlationId: string;
				callId: string;
				name: string;
				arguments: string;
				/** Set when the command would run without its OS sandbox: why (docs/sandbox.md). */
				unsandboxed?: string;
		  }
		| {
				type: "approval_decision";
				callId: string;
				name: string;
				decision: "allow" | "deny";
				by: "policy" | "user" | "always" | "timeout";
				correlationId?: string;
		  }
		| { type: "tool_start"; callId: string; name: string }
		| { type: "tool_progress"; callId: string; name: string; progress: string }
		| { type: "abort"; carryOver: "A" | "B" | "none" }
		| { type: "compaction_begin"; reason: "context" | "turns" | "manual"; mode: "summarize" | "discard" }
		| { type: "compaction_end"; status: "ok" | "failed"; error?: ErrorInfo }
		| { type: "done"; reason: DoneReason; usage: Usage; sessionUsage?: Usage; error?: ErrorInfo }
		| { type: "instructions_loaded"; files: InstructionFile[]; text: string }
		| {
				type: "checkpoint_created";
				checkpointId: string;
				reason: "turn" | "restore";
				skipped: { path: string; bytes: number }[];
		  }
		| { type: "checkpoint_failed"; reason: "turn" | "restore"; error: ErrorInfo }
		| { type: "checkpoint_restored"; checkpointId: string; before: string; restored: string[]; conflicts: string[] }
		| { type: "session_rewound"; toSeq: number }
	);

/** One AGENTS.md in a Session's system prompt. */
export interface InstructionFile {
	path: string;
	bytes: number;
	truncated: boolean;
}

export type OmniMessageType = OmniMessage["type"];
export type MessageOf<T extends OmniMessageType> = Extract<OmniMessage, { type: T }>;

import type { InstructionFile, Usage } from "./messages.js";

/** The shapes of the Runtime Server's JSON answers and `GET /events` frames (docs/protocol.md §3, §6). */

export type SessionStatus = "idle" | "busy" | "waiting_approval";
export type SessionLock = { reason: "auth"; credential: string } | null;

export interface SessionSummary {
	id: string;
	title: string | null;
	agentId: string;
	model: string;
	workspaceDir: string;
	status: SessionStatus;
	lock: SessionLock;
	createdAt: number;
	updatedAt: number;
	usage: Usage;
}

/** One file the agent changed (or a restore would change), with its unified diff. */
export interface FileChange {
	path: string;
	status: "added" | "modified" | "deleted";
	diff: string;
}

/** What a restore did. */
export interface RestoreAnswer {
	checkpointId: string;
	before: string;
	restored: string[];
	conflicts: string[];
}

/** A Session a search found: by its title, or by a message (its seq and the words around the match). */
export interface SessionSearchHit extends SessionSummary {
	match: { in: "title" } | { in: "text"; seq: number; snippet: string };
}

export interface SessionDetail extends SessionSummary {
	instructions: InstructionFile[];
}

export interface PendingConfirmation {
	correlationId: string;
	callId: string;
	name: string;
	arguments: string;
	requestedAt: number;
}

export type WorkflowStatus = "running" | "waiting_approval" | "ready" | "completed" | "failed" | "cancelled";

/** A workflow as `GET /workflows` lists it (docs/protocol.md, Workflows). */
export interface WorkflowView {
	id: string;
	name?: string;
	sessionId: string;
	status: WorkflowStatus;
	/** The approvals not decided yet, in call order; durable, so a restart keeps them. */
	pendingApprovals: (PendingConfirmation & { expiresAt?: number })[];
	error?: string;
	createdAt: number;
	updatedAt: number;
}

export interface AgentsAnswer {
	agents: { id: string; model: string; description?: string }[];
	demo: boolean;
	notice?: string;
	/** Where Sessions may work; a new one's folder defaults to the first. */
	workspaceRoots: string[];
}

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export type UsageGroupBy = "day" | "model" | "session" | "agent";

export interface UsageGroup extends Usage {
	key: string;
	requests: number;
	cost?: number;
}

export interface CredentialInfo {
	name: string;
	set: boolean;
	usedBy: string[];
}

/** The frames of `GET /events` that are not a Session's messages (they carry no `id:`). */
export type ServerEvent =
	| { type: "sessions_snapshot"; sessions: SessionSummary[] }
	| { type: "session_status"; sessionId: string; status: SessionStatus; lock: SessionLock }
	| { type: "session_deleted"; sessionId: string }
	| { type: "credential_updated"; name: string }
	| StoreErrorEvent;

/** A write nobody waited for failed (docs/protocol.md §6.2): `retrying` when it is kept and tried again. */
export interface StoreErrorEvent {
	type: "store_error";
	sessionId: string;
	operation: string;
	message: string;
	retrying: boolean;
}

/** A line of a Session's Trace that could not be read (left out of its history), or where its bytes were moved. */
export interface TraceDamage {
	file: string;
	line?: number;
	problem: string;
	movedTo?: string;
}

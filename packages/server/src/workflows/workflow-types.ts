import type { DecidedBy, Decision, WorkflowStatus } from "@omniloop/client/wire";

// A workflow as the API shows it, its statuses and decisions: the wire's (docs/protocol.md, Workflows).
export {
	type DecidedBy,
	type Decision,
	type PendingApproval,
	WORKFLOW_STATUSES,
	type WorkflowStatus,
	type WorkflowView,
} from "@omniloop/client/wire";

/** Statuses a workflow never leaves. */
export const FINISHED: ReadonlySet<WorkflowStatus> = new Set(["completed", "failed", "cancelled"]);

/** One step of a workflow: a Task of an agent, or a question to a person. */
export type WorkflowStep = { agent: string; prompt: string } | { approval: string };

export interface StoredWorkflow {
	id: string;
	name: string | null;
	sessionId: string;
	status: WorkflowStatus;
	input: string;
	steps: WorkflowStep[];
	step: number;
	answers: string[];
	stepStartedSeq: number;
	approvalTimeoutMs: number | null;
	result: { text: string } | null;
	error: string | null;
	createdAt: number;
	updatedAt: number;
}

export interface StoredApproval {
	correlationId: string;
	workflowId: string;
	kind: "call" | "gate";
	callId: string;
	name: string;
	arguments: string;
	requestedAt: number;
	expiresAt: number | null;
	decision: Decision | null;
	decidedBy: DecidedBy | null;
	decidedAt: number | null;
	released: boolean;
}

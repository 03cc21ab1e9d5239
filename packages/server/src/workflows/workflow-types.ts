/** A workflow's statuses (docs/protocol.md, Workflows). */
export const WORKFLOW_STATUSES = ["running", "waiting_approval", "ready", "completed", "failed", "cancelled"] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

/** Statuses a workflow never leaves. */
export const FINISHED: ReadonlySet<WorkflowStatus> = new Set(["completed", "failed", "cancelled"]);

/** One step of a workflow: a Task of an agent, or a question to a person. */
export type WorkflowStep = { agent: string; prompt: string } | { approval: string };

export type Decision = "allow" | "deny";
/** Who decided: a person through `approve`, or the approval's deadline. */
export type DecidedBy = "user" | "timeout";

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

/** A pending approval as `GET /workflows/:id` lists it. */
export interface PendingApproval {
	correlationId: string;
	callId: string;
	name: string;
	arguments: string;
	requestedAt: number;
	expiresAt?: number;
}

/** A workflow as the API shows it. */
export interface WorkflowView {
	id: string;
	name?: string;
	sessionId: string;
	status: WorkflowStatus;
	pendingApprovals: PendingApproval[];
	/** Every approval asked so far with its decision, `by: "user" | "timeout"`. */
	approvals: {
		correlationId: string;
		callId: string;
		name: string;
		decision: Decision | null;
		by: DecidedBy | null;
		decidedAt: number | null;
	}[];
	step: number;
	result?: { text: string };
	error?: string;
	createdAt: number;
	updatedAt: number;
}

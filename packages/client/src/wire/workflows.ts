import { z } from "zod";
import { WORKFLOW_STATUSES } from "./constants.js";

/** A workflow as the API shows it (docs/protocol.md, Workflows). */

export const workflowStatus = z.enum(WORKFLOW_STATUSES);
export const decision = z.enum(["allow", "deny"]);
/** Who decided: a person through `approve`, or the approval's deadline. */
export const decidedBy = z.enum(["user", "timeout"]);

/** An approval not decided yet; durable, so a restart keeps it. */
export const pendingApproval = z.object({
	correlationId: z.string(),
	callId: z.string(),
	name: z.string(),
	arguments: z.string(),
	requestedAt: z.number(),
	expiresAt: z.number().optional(),
});

export const workflowView = z.object({
	id: z.string(),
	name: z.string().optional(),
	sessionId: z.string(),
	status: workflowStatus,
	/** In call order. */
	pendingApprovals: z.array(pendingApproval),
	/** Every approval asked so far with its decision. */
	approvals: z.array(
		z.object({
			correlationId: z.string(),
			callId: z.string(),
			name: z.string(),
			decision: decision.nullable(),
			by: decidedBy.nullable(),
			decidedAt: z.number().nullable(),
		}),
	),
	step: z.number(),
	result: z.object({ text: z.string() }).optional(),
	error: z.string().optional(),
	createdAt: z.number(),
	updatedAt: z.number(),
});

export const startedWorkflow = z.object({ id: z.string(), sessionId: z.string(), status: workflowStatus });

export type WorkflowStatus = z.infer<typeof workflowStatus>;
export type Decision = z.infer<typeof decision>;
export type DecidedBy = z.infer<typeof decidedBy>;
export type PendingApproval = z.infer<typeof pendingApproval>;
export type WorkflowView = z.infer<typeof workflowView>;

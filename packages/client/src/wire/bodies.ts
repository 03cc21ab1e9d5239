import { z } from "zod";
import { WORKFLOW_STATUSES } from "./constants.js";
import { thinkingLevel, usageGroupBy } from "./sessions.js";

/** The request bodies and queries of the routes (docs/protocol.md §3); the server reads each with its schema. */

export const createSessionBody = z
	.object({ agentId: z.string().min(1).optional(), workspaceDir: z.string().min(1).optional() })
	.strict();

/** The most characters a title keeps (core's MAX_TITLE_LENGTH; the server checks it again with core's checkTitle). */
export const MAX_TITLE_LENGTH = 200;

/**
 * `PATCH /chat/sessions/:id`: a new title, a model of omniloop.yaml (by name) for the Session's
 * next Tasks, or both.
 */
export const patchSessionBody = z
	.object({
		title: z
			.string()
			.trim()
			.min(1, `empty once trimmed; give 1 to ${MAX_TITLE_LENGTH} characters`)
			.max(MAX_TITLE_LENGTH, `longer than ${MAX_TITLE_LENGTH} characters once trimmed`)
			.optional(),
		model: z.string().min(1, "empty; give a model's name of omniloop.yaml (GET /agents lists them)").optional(),
	})
	.strict()
	.refine((body) => body.title !== undefined || body.model !== undefined, {
		message: "give title, model or both",
	});

/** The body before it could switch models too. */
export const renameSessionBody = patchSessionBody;

/** The most characters a search (`GET /chat/sessions?q=`) takes. */
export const MAX_SEARCH_QUERY = 200;
export const sessionsQuery = z.object({ q: z.string().max(MAX_SEARCH_QUERY).optional() });

export const messagesBody = z
	.object({
		text: z.string().min(1).optional(),
		messages: z
			.array(z.object({ type: z.literal("user_text"), text: z.string().min(1) }).strict())
			.min(1)
			.optional(),
		thinkingLevel: thinkingLevel.optional(),
	})
	.strict()
	.superRefine((body, ctx) => {
		if ((body.text === undefined) === (body.messages === undefined)) {
			ctx.addIssue({ code: "custom", path: ["text"], message: "give either text or messages (exactly one)" });
		}
	});

export const steerBody = z.object({ text: z.string().min(1) }).strict();

export const answerBody = z
	.object({ correlationId: z.string().min(1), decision: z.enum(["allow", "deny"]), always: z.boolean().optional() })
	.strict();

export const restoreBody = z.object({ overwrite: z.boolean().optional() }).strict();
export const rewindBody = z
	.object({ seq: z.number().int().positive(), files: z.boolean().optional(), overwrite: z.boolean().optional() })
	.strict();
export const forkBody = z
	.object({ seq: z.number().int().positive(), workspaceDir: z.string().min(1).optional() })
	.strict();
export const credentialBody = z.object({ value: z.string().min(1) }).strict();

export const startWorkflowBody = z
	.object({
		workflow: z.string().min(1).optional(),
		agentId: z.string().min(1).optional(),
		input: z.string().min(1),
		workspaceDir: z.string().min(1).optional(),
		approvalTimeoutMs: z.number().int().positive().optional(),
	})
	.strict()
	.superRefine((body, ctx) => {
		if (body.workflow !== undefined && body.agentId !== undefined) {
			ctx.addIssue({
				code: "custom",
				path: ["agentId"],
				message: "a named workflow names its agents: give workflow or agentId, not both",
			});
		}
		if (body.workflow !== undefined && body.approvalTimeoutMs !== undefined) {
			ctx.addIssue({
				code: "custom",
				path: ["approvalTimeoutMs"],
				message: "a named workflow's deadline is its approvalTimeoutMs in omniloop.yaml",
			});
		}
	});

export const approveWorkflowBody = z
	.object({ correlationId: z.string().min(1), decision: z.enum(["allow", "deny"]) })
	.strict();

/** A seq in a query (`?after=`): its digits. */
const seqQuery = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]);

export const historyQuery = z.object({ after: seqQuery.optional(), limit: seqQuery.optional() });
export const streamQuery = z.object({ after: seqQuery.optional() });
export const eventsQuery = z.object({ session: z.string().optional(), after: seqQuery.optional() });
export const usageQuery = z.object({
	from: seqQuery.optional(),
	to: seqQuery.optional(),
	groupBy: usageGroupBy.optional(),
});
export const usageRowsQuery = z.object({ sessionId: z.string().optional() });
export const workflowsQuery = z.object({
	status: z.enum(WORKFLOW_STATUSES).optional(),
});

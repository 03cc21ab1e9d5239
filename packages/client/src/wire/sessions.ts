import { z } from "zod";
import { THINKING_LEVELS } from "./constants.js";
import { checkpointCreated, checkpointRestored, instructionFile, omniMessage, skippedFile, usage } from "./messages.js";

/** A Session's answers and `GET /events` frames (docs/protocol.md §3, §6). */

export const sessionStatus = z.enum(["idle", "busy", "waiting_approval"]);
export const sessionLock = z.object({ reason: z.literal("auth"), credential: z.string() }).nullable();

/** The Session a fork was made from, and the seq of the person's message it was forked before. */
export const forkParent = z.object({ sessionId: z.string(), seq: z.number() });

/** A file of the parent's workspace a fork into a new folder did not get, and why (docs/checkpoints.md). */
export const leftOutFile = z.object({
	path: z.string(),
	reason: z.enum(["too_big", "ignored", "nested_repository"]),
	bytes: z.number().optional(),
});

export const sessionSummary = z.object({
	id: z.string(),
	title: z.string().nullable(),
	agentId: z.string(),
	model: z.string(),
	workspaceDir: z.string(),
	status: sessionStatus,
	lock: sessionLock,
	createdAt: z.number(),
	updatedAt: z.number(),
	usage,
	/** A fork's: where its history came from (absent for a Session made anew). */
	parent: forkParent.optional(),
});

export const createdSession = z.object({
	id: z.string(),
	agentId: z.string(),
	model: z.string(),
	workspaceDir: z.string(),
	createdAt: z.number(),
});

export const pendingConfirmation = z.object({
	correlationId: z.string(),
	callId: z.string(),
	name: z.string(),
	arguments: z.string(),
	requestedAt: z.number(),
});

/** A damaged line of a Session's Trace, left out of `messages`. */
export const traceDamage = z.object({
	file: z.string(),
	line: z.number().optional(),
	movedTo: z.string().optional(),
	problem: z.string(),
});

export const sessionDetail = sessionSummary.extend({ instructions: z.array(instructionFile) });

export const sessionRead = z.object({
	session: sessionDetail,
	messages: z.array(omniMessage),
	pendingConfirmations: z.array(pendingConfirmation),
	traceDamage: z.array(traceDamage).optional(),
});

export const checkpoint = z.object({
	id: z.string(),
	n: z.number(),
	reason: z.enum(["turn", "restore"]),
	seq: z.number(),
	createdAt: z.number(),
	skipped: z.array(skippedFile),
	restoredTo: z.string().optional(),
});

export const fileChange = z.object({
	path: z.string(),
	status: z.enum(["added", "modified", "deleted"]),
	diff: z.string(),
	/** In a restore's preview: changed outside the agent since, so the restore keeps it unless told to overwrite. */
	conflict: z.literal(true).optional(),
});

export const restoreAnswer = z.object({
	checkpointId: z.string(),
	before: z.string(),
	restored: z.array(z.string()),
	conflicts: z.array(z.string()),
	/** What it recorded, as every viewer's stream carries it: the checkpoint before it, then the restore. */
	events: z.tuple([checkpointCreated, checkpointRestored]),
});

export const sandboxState = z.object({
	mode: z.string(),
	available: z.boolean(),
	reason: z.string().optional(),
});

export const agentsAnswer = z.object({
	agents: z.array(
		z.object({ id: z.string(), model: z.string(), description: z.string().optional(), sandbox: sandboxState }),
	),
	demo: z.boolean(),
	notice: z.string().optional(),
	/** The models of omniloop.yaml a Session can be switched to (`PATCH /chat/sessions/:id { model }`): name and provider:model. */
	models: z.array(z.object({ name: z.string(), model: z.string() })),
	/** Where Sessions may work; a new one's folder defaults to the first. */
	workspaceRoots: z.array(z.string()),
});

export const credentialInfo = z.object({ name: z.string(), set: z.boolean(), usedBy: z.array(z.string()) });

export const usageGroupBy = z.enum(["day", "model", "session", "agent"]);
export const usageGroup = usage.extend({ key: z.string(), requests: z.number(), cost: z.number().optional() });
export const usageRow = usage.extend({
	sessionId: z.string(),
	seq: z.number(),
	agentId: z.string(),
	model: z.string(),
	ts: z.number(),
});

export const thinkingLevel = z.enum(THINKING_LEVELS);

/** Where a search found a Session: its title, or a message (its seq and the words around the match). */
export const searchMatch = z.discriminatedUnion("in", [
	z.object({ in: z.literal("title") }),
	z.object({ in: z.literal("text"), seq: z.number(), snippet: z.string() }),
]);

/** `GET /chat/sessions?q=`: what a search found, and how many Sessions' messages it read (bounded). */
export const sessionSearch = z.object({
	sessions: z.array(sessionSummary.extend({ match: searchMatch })),
	textsScanned: z.number(),
	scanLimit: z.number(),
});

/** The frames of `GET /events` that are not a Session's messages (they carry no `id:`). */
export const serverEvent = z.discriminatedUnion("type", [
	z.object({ type: z.literal("sessions_snapshot"), sessions: z.array(sessionSummary) }),
	z.object({ type: z.literal("session_status"), sessionId: z.string(), status: sessionStatus, lock: sessionLock }),
	z.object({ type: z.literal("session_deleted"), sessionId: z.string() }),
	z.object({ type: z.literal("credential_updated"), name: z.string() }),
	z.object({
		type: z.literal("store_error"),
		sessionId: z.string().nullable(),
		operation: z.string(),
		message: z.string(),
		retrying: z.boolean(),
	}),
]);

export type SessionStatus = z.infer<typeof sessionStatus>;
export type SessionLock = z.infer<typeof sessionLock>;
export type SessionSummary = z.infer<typeof sessionSummary>;
export type SessionDetail = z.infer<typeof sessionDetail>;
export type PendingConfirmation = z.infer<typeof pendingConfirmation>;
export type TraceDamage = z.infer<typeof traceDamage>;
export type Checkpoint = z.infer<typeof checkpoint>;
export type FileChange = z.infer<typeof fileChange>;
export type RestoreAnswer = z.infer<typeof restoreAnswer>;
export type AgentsAnswer = z.infer<typeof agentsAnswer>;
export type CredentialInfo = z.infer<typeof credentialInfo>;
export type UsageGroupBy = z.infer<typeof usageGroupBy>;
export type UsageGroup = z.infer<typeof usageGroup>;
export type UsageRow = z.infer<typeof usageRow>;
export type ThinkingLevel = z.infer<typeof thinkingLevel>;
export type ServerEvent = z.infer<typeof serverEvent>;
export type StoreErrorEvent = Extract<ServerEvent, { type: "store_error" }>;
export type SessionSearch = z.infer<typeof sessionSearch>;
export type SessionSearchHit = SessionSearch["sessions"][number];

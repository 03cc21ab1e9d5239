import { z } from "zod";
import * as body from "./bodies.js";
import { instructionFile, instructionsLoaded, omniMessage, sessionRewound } from "./messages.js";
import {
	agentsAnswer,
	checkpoint,
	createdSession,
	credentialInfo,
	fileChange,
	forkParent,
	leftOutFile,
	restoreAnswer,
	serverEvent,
	sessionRead,
	sessionSearch,
	sessionSummary,
	usageGroup,
	usageRow,
} from "./sessions.js";
import { startedWorkflow, workflowStatus, workflowView } from "./workflows.js";

/** What a route answers with one status: JSON, an SSE stream of frames, text of a type, or nothing. */
export type Answer = { json: z.ZodType } | { sse: z.ZodType } | { text: string } | { empty: true };

export interface RouteSpec {
	summary: string;
	/** False for the routes outside the token guard (the page, its assets, the health check). */
	token?: false;
	query?: z.ZodObject;
	body?: z.ZodType;
	/** The request headers the route reads. */
	headers?: z.ZodObject;
	answers: Readonly<Partial<Record<200 | 201 | 202 | 204 | 302, Answer>>>;
}

const json = <T extends z.ZodType>(schema: T) => ({ json: schema });
const sse = <T extends z.ZodType>(schema: T) => ({ sse: schema });
const empty = { empty: true } as const;
const fields = <T extends z.ZodRawShape>(shape: T) => json(z.object(shape));
const resumeHeader = z.object({ "last-event-id": z.string().optional() });
const statusAnswer = fields({ status: workflowStatus });

/**
 * Every route of the Runtime Server, by `METHOD /path` (Hono's `:param` syntax): what it reads and
 * what it answers. The OpenAPI document (openapi.ts) and the client's types are made from this one
 * table; the server reads its bodies with these schemas, and a test checks it serves exactly these.
 */
export const routes = {
	"GET /healthz": { summary: "The server is up.", token: false, answers: { 200: fields({ ok: z.literal(true) }) } },
	"GET /": {
		summary: "The web app's page (or, with no web app built, a page naming the API); `?token=` moves to the fragment.",
		token: false,
		answers: { 200: { text: "text/html" }, 302: empty },
	},
	"GET /assets/:name": {
		summary: "A file of the built web app (content-hashed names, cached forever).",
		token: false,
		answers: { 200: { text: "application/octet-stream" } },
	},
	"GET /openapi.json": { summary: "This document.", answers: { 200: json(z.record(z.string(), z.unknown())) } },
	"POST /chat/sessions": {
		summary: "A new Session; `workspaceDir` defaults to the first workspace root and must lie inside one.",
		body: body.createSessionBody,
		answers: { 201: json(createdSession) },
	},
	"GET /chat/sessions": {
		summary:
			"The Sessions whose workspace lies inside a workspace root; with `q`, those whose title or messages hold it (the messages of the newest `scanLimit` only).",
		query: body.sessionsQuery,
		answers: { 200: json(z.union([z.object({ sessions: z.array(sessionSummary) }).strict(), sessionSearch])) },
	},
	"PATCH /chat/sessions/:id": {
		summary:
			"Renames the Session (a title of 1–200 characters, trimmed) and/or puts it on another configured model (by name, from the next Task; 409 while a Task runs); answers its summary.",
		body: body.patchSessionBody,
		answers: { 200: json(sessionSummary) },
	},
	"GET /chat/sessions/:id": {
		summary: "A Session, its history from the Trace after `after` (no partials), its pending confirmations.",
		query: body.historyQuery,
		answers: { 200: json(sessionRead) },
	},
	"DELETE /chat/sessions/:id": { summary: "Deletes a Session (a running Task is aborted).", answers: { 204: empty } },
	"GET /chat/sessions/:id/compactability": {
		summary: "Whether a compaction can run now.",
		answers: { 200: fields({ compactability: z.enum(["ok", "unsupported", "empty", "just_compacted"]) }) },
	},
	"POST /chat/sessions/:id/title": {
		summary: "A title from the model (never in the history).",
		answers: { 200: fields({ title: z.string() }) },
	},
	"DELETE /chat/sessions/:id/lock": { summary: "The auth notice dismissed for a retry.", answers: { 204: empty } },
	"POST /chat/sessions/:id/messages": {
		summary: "Starts a Task: its messages as SSE until `done`, or 202 with `Prefer: respond-async`.",
		body: body.messagesBody,
		headers: z.object({ prefer: z.string().optional() }),
		answers: { 200: sse(omniMessage), 202: fields({ accepted: z.literal(true), sessionId: z.string() }) },
	},
	"POST /chat/sessions/:id/steer": {
		summary: "Steers the running Task; false when none runs.",
		body: body.steerBody,
		answers: { 200: fields({ accepted: z.boolean() }) },
	},
	"POST /chat/sessions/:id/abort": {
		summary: "Aborts the running Task.",
		answers: { 200: fields({ aborted: z.boolean() }) },
	},
	"POST /chat/sessions/:id/retry-now": {
		summary: "Cuts a reconnect wait short.",
		answers: { 200: fields({ skipped: z.boolean() }) },
	},
	"POST /chat/sessions/:id/compact": { summary: "A compaction's messages as SSE.", answers: { 200: sse(omniMessage) } },
	"POST /chat/sessions/:id/ask-user-response": {
		summary: "The answer to a `confirmation_required`; the first answer wins.",
		body: body.answerBody,
		answers: { 200: fields({ ok: z.literal(true) }) },
	},
	"GET /chat/sessions/:id/checkpoints": {
		summary: "The Session's checkpoints, oldest first.",
		answers: { 200: fields({ checkpoints: z.array(checkpoint) }) },
	},
	"GET /chat/sessions/:id/checkpoints/:checkpointId/diff": {
		summary: "What a restore to the checkpoint would change.",
		answers: { 200: fields({ files: z.array(fileChange) }) },
	},
	"POST /chat/sessions/:id/checkpoints/:checkpointId/restore": {
		summary: "Restores the files to a checkpoint.",
		body: body.restoreBody,
		answers: { 200: json(restoreAnswer) },
	},
	"GET /chat/sessions/:id/undo-target": {
		summary: "The checkpoint an undo would restore now (to preview it first); none when no turn is left to undo.",
		answers: { 200: fields({ checkpoint: checkpoint.optional() }) },
	},
	"POST /chat/sessions/:id/undo": {
		summary: "Undoes the last turn's changes.",
		body: body.restoreBody,
		answers: { 200: json(restoreAnswer) },
	},
	"GET /chat/sessions/:id/files-changed": {
		summary: "Every file the agent changed in the Session.",
		answers: { 200: fields({ files: z.array(fileChange) }) },
	},
	"POST /chat/sessions/:id/rewind": {
		summary: "The conversation back to before the person's message `seq` (with `files`, the files too).",
		body: body.rewindBody,
		answers: {
			200: fields({ rewound: sessionRewound, restore: restoreAnswer.optional() }),
		},
	},
	"POST /chat/sessions/:id/fork": {
		summary: "A new Session with this one's history before `seq`.",
		body: body.forkBody,
		answers: {
			201: json(createdSession.extend({ parent: forkParent, leftOut: z.array(leftOutFile) })),
		},
	},
	"POST /chat/sessions/:id/instructions/reload": {
		summary: "The AGENTS.md files read again.",
		answers: { 200: fields({ instructions: z.array(instructionFile), event: instructionsLoaded }) },
	},
	"GET /chat/sessions/:id/events": {
		summary: "Every message after the resume point, then live, across Tasks.",
		query: body.streamQuery,
		headers: resumeHeader,
		answers: { 200: sse(omniMessage) },
	},
	"GET /events": {
		summary: "One stream a browser tab: server events, and the watched Session's messages.",
		query: body.eventsQuery,
		headers: resumeHeader,
		answers: { 200: sse(z.union([serverEvent, omniMessage])) },
	},
	"GET /usage": {
		summary: "Usage sums by group, with cost when every model of the group has a price.",
		query: body.usageQuery,
		answers: { 200: fields({ rows: z.array(usageGroup) }) },
	},
	"GET /usage/rows": {
		summary: "One row per `token_usage` event.",
		query: body.usageRowsQuery,
		answers: { 200: fields({ rows: z.array(usageRow) }) },
	},
	"GET /agents": { summary: "The configured agents and the workspace roots.", answers: { 200: json(agentsAnswer) } },
	"GET /credentials": {
		summary: "The credentials the models read (never their values).",
		answers: { 200: fields({ credentials: z.array(credentialInfo) }) },
	},
	"PUT /credentials/:name": {
		summary: "Sets a credential's value.",
		body: body.credentialBody,
		answers: { 204: empty },
	},
	"GET /metrics": { summary: "Prometheus text.", answers: { 200: { text: "text/plain" } } },
	"POST /workflows": {
		summary: "Starts a workflow: a named one, or one Task of an agent.",
		body: body.startWorkflowBody,
		answers: { 202: json(startedWorkflow) },
	},
	"GET /workflows": {
		summary: "The workflows, newest first.",
		query: body.workflowsQuery,
		answers: { 200: fields({ workflows: z.array(workflowView) }) },
	},
	"GET /workflows/:id": { summary: "One workflow.", answers: { 200: json(workflowView) } },
	"POST /workflows/:id/approve": {
		summary: "Records a decision on a pending approval, durably.",
		body: body.approveWorkflowBody,
		answers: { 200: statusAnswer },
	},
	"POST /workflows/:id/resume": { summary: "Continues a ready workflow.", answers: { 202: statusAnswer } },
	"POST /workflows/:id/cancel": {
		summary: "Cancels a workflow (its Task is aborted).",
		answers: { 200: statusAnswer },
	},
} as const satisfies Record<string, RouteSpec>;

export type Routes = typeof routes;
export type RouteName = keyof Routes;

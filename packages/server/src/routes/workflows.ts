import { approveWorkflowBody, startWorkflowBody } from "@omniloop/client/wire";
import type { Hono } from "hono";
import { confineWorkspace } from "../auth/workspace.js";
import { rootOf } from "../auth/workspace-root.js";
import { noBody, readBody } from "../body.js";
import { HttpError } from "../errors.js";
import type { AppEnv, ServerState } from "../server-state.js";
import { WORKFLOW_STATUSES } from "../workflows/workflow-types.js";

/** docs/protocol.md, Workflows: start, list, show, approve, resume and cancel workflows. */
export function workflowRoutes(app: Hono<AppEnv>, state: ServerState): void {
	const { workflows } = state;

	app.post("/workflows", async (c) => {
		const body = await readBody(c, startWorkflowBody);
		const workspaceDir = confineWorkspace(state.workspaceRoots, body.workspaceDir);
		// As POST /chat/sessions: the Session's AGENTS.md walk starts at the root that holds it.
		const workspaceRoot = rootOf(state.workspaceRoots, workspaceDir);
		const started = await workflows.start({ ...body, workspaceDir, workspaceRoot });
		return c.json({ id: started.id, sessionId: started.sessionId, status: started.status }, 202);
	});

	app.get("/workflows", async (c) => {
		const status = c.req.query("status");
		if (status !== undefined && !WORKFLOW_STATUSES.some((known) => known === status)) {
			throw new HttpError("invalid_body", `status: expected one of ${WORKFLOW_STATUSES.join(", ")}`);
		}
		const known = WORKFLOW_STATUSES.find((s) => s === status);
		return c.json({ workflows: await workflows.list(known) });
	});

	// Approve, resume and cancel go through the same check as a read: a hidden Session's workflow is not found.
	app.use("/workflows/:id/*", async (c, next) => {
		await workflows.view(c.req.param("id"));
		await next();
	});

	app.get("/workflows/:id", async (c) => c.json(await workflows.view(c.req.param("id"))));

	app.post("/workflows/:id/approve", async (c) => {
		const body = await readBody(c, approveWorkflowBody);
		return c.json({ status: await workflows.decide(c.req.param("id"), body.correlationId, body.decision) });
	});

	app.post("/workflows/:id/resume", async (c) => {
		await noBody(c);
		return c.json({ status: await workflows.resume(c.req.param("id")) }, 202);
	});

	app.post("/workflows/:id/cancel", async (c) => {
		await noBody(c);
		return c.json({ status: await workflows.cancel(c.req.param("id")) });
	});
}

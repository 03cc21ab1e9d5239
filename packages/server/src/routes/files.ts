import { forkBody, restoreBody, rewindBody } from "@omniloop/client/wire";
import type { Hono } from "hono";
import { newFolderInRoots } from "../auth/new-folder.js";
import { noBody, readBody } from "../body.js";
import type { AppEnv, ServerState } from "../server-state.js";

/**
 * A Session's files and history between Tasks (docs/checkpoints.md, docs/project-instructions.md):
 * checkpoints, the diff a restore would make, restore, undo (and what it would restore), files changed, rewind, fork, and the
 * reload of its instructions. Each maps onto one Session call; 409 `session_busy` while a Task runs.
 * An answer carries the events the call recorded (every viewer's stream carries them too), so a
 * caller shows them without reading the history again.
 */
export function fileRoutes(app: Hono<AppEnv>, state: ServerState): void {
	const { registry } = state;
	const session = (id: string) => registry.get(id);
	const loaded = (id: string) => session(id).loaded();

	app.get("/chat/sessions/:id/checkpoints", async (c) => {
		const checkpoints = await (await loaded(c.req.param("id"))).checkpoints();
		return c.json({ checkpoints });
	});

	app.get("/chat/sessions/:id/checkpoints/:checkpointId/diff", async (c) => {
		const files = await (await loaded(c.req.param("id"))).checkpointDiff(c.req.param("checkpointId"));
		return c.json({ files });
	});

	app.post("/chat/sessions/:id/checkpoints/:checkpointId/restore", async (c) => {
		const options = await readBody(c, restoreBody);
		const done = await session(c.req.param("id")).between(
			(s) => s.restore(c.req.param("checkpointId"), options),
			(restored) => restored.events,
		);
		return c.json(done);
	});

	app.get("/chat/sessions/:id/undo-target", async (c) => {
		const checkpoint = await (await loaded(c.req.param("id"))).undoTarget();
		return c.json(checkpoint === undefined ? {} : { checkpoint });
	});

	app.post("/chat/sessions/:id/undo", async (c) => {
		const options = await readBody(c, restoreBody);
		const done = await session(c.req.param("id")).between(
			(s) => s.undo(options),
			(restored) => restored.events,
		);
		return c.json(done);
	});

	app.get("/chat/sessions/:id/files-changed", async (c) => {
		const files = await (await loaded(c.req.param("id"))).filesChanged();
		return c.json({ files });
	});

	app.post("/chat/sessions/:id/rewind", async (c) => {
		const { seq, ...options } = await readBody(c, rewindBody);
		const done = await session(c.req.param("id")).between(
			(s) => s.rewind(seq, options),
			(rewound) => [...(rewound.restore?.events ?? []), rewound.event],
		);
		return c.json({ rewound: done.event, ...(done.restore === undefined ? {} : { restore: done.restore }) });
	});

	app.post("/chat/sessions/:id/fork", async (c) => {
		const body = await readBody(c, forkBody);
		const parent = session(c.req.param("id"));
		const folder =
			body.workspaceDir === undefined ? undefined : newFolderInRoots(state.workspaceRoots, body.workspaceDir);
		// Between Tasks, as the others: a fork of a Session whose Task runs would copy a history
		// (and files) in the middle of a turn.
		const { fork, leftOut } = await parent
			.between(
				() => registry.fork(parent, body.seq, folder?.path),
				() => [],
			)
			.catch((error: unknown) => {
				folder?.undo();
				throw error;
			});
		const { row } = fork;
		return c.json(
			{
				id: row.id,
				agentId: row.agentId,
				model: row.model,
				workspaceDir: row.workspaceDir,
				createdAt: row.createdAt,
				parent: { sessionId: parent.id, seq: body.seq },
				leftOut,
			},
			201,
		);
	});

	app.post("/chat/sessions/:id/instructions/reload", async (c) => {
		await noBody(c);
		const event = await session(c.req.param("id")).between(
			(s) => s.reloadInstructions(),
			(loadedEvent) => [loadedEvent],
		);
		return c.json({ instructions: event.files, event });
	});
}

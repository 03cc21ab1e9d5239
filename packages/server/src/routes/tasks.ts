import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { messagesBody, steerBody } from "@omniloop/client/wire";
import { type ModelMessage, userText } from "@omniloop/core";
import type { Context, Hono } from "hono";
import { noBody, readBody } from "../body.js";
import type { HostedSession } from "../host/hosted-session.js";
import type { AppEnv, ServerState } from "../server-state.js";
import { openViewer, ViewerListener } from "../sse/open-viewer.js";

/** Tasks: start one (streamed, or 202 with `Prefer: respond-async`), steer, abort, retry now, compact. */
export function taskRoutes(app: Hono<AppEnv>, state: ServerState): void {
	const { registry } = state;

	app.post("/chat/sessions/:id/messages", async (c) => {
		const body = await readBody(c, messagesBody);
		const hosted = registry.get(c.req.param("id"));
		await state.workflows.refuseChat(hosted.id, "message");
		const input: ModelMessage[] =
			body.text !== undefined ? [userText(body.text)] : (body.messages ?? []).map((m) => userText(m.text));
		if (/\brespond-async\b/.test(c.req.header("prefer") ?? "")) {
			await hosted.startTask(input, body.thinkingLevel);
			return c.json({ accepted: true, sessionId: hosted.id }, 202);
		}
		const listener = new ViewerListener();
		await hosted.startTask(input, body.thinkingLevel, listener);
		return streamTo(c, state, hosted, listener);
	});

	app.post("/chat/sessions/:id/compact", async (c) => {
		await noBody(c);
		const hosted = registry.get(c.req.param("id"));
		await state.workflows.refuseChat(hosted.id, "compaction");
		const listener = new ViewerListener();
		await hosted.startCompaction(listener);
		return streamTo(c, state, hosted, listener);
	});

	app.post("/chat/sessions/:id/steer", async (c) => {
		const { text } = await readBody(c, steerBody);
		return c.json({ accepted: await registry.get(c.req.param("id")).steer(text) });
	});

	app.post("/chat/sessions/:id/abort", async (c) => {
		await noBody(c);
		return c.json({ aborted: await registry.get(c.req.param("id")).abortAnywhere() });
	});

	app.post("/chat/sessions/:id/retry-now", async (c) => {
		await noBody(c);
		return c.json({ skipped: registry.get(c.req.param("id")).skipReconnectWait() });
	});
}

/**
 * The work's messages as SSE, ending after it. A reader that goes away only stops reading: the
 * Task goes on (only `abort` ends it).
 */
function streamTo(c: Context<AppEnv>, state: ServerState, hosted: HostedSession, listener: ViewerListener) {
	const viewer = openViewer(c, state);
	viewer.onClose(() => hosted.unsubscribe(listener));
	listener.attach(viewer);
	return RESPONSE_ALREADY_SENT;
}

import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Context, Hono } from "hono";
import { HttpError } from "../errors.js";
import type { BusEvent, EventBus } from "../host/log/event-bus.js";
import type { SessionListener } from "../host/log/session-log.js";
import type { AppEnv, ServerState } from "../server-state.js";
import { openViewer } from "../sse/open-viewer.js";
import type { SseViewer } from "../sse/viewer.js";

/** Where a client resumes: `Last-Event-ID` (what EventSource sends) or `?after=`; neither is "live from now". */
function resumePoint(c: Context<AppEnv>): number | undefined {
	const value = c.req.header("last-event-id") ?? c.req.query("after");
	if (value === undefined || value === "") return undefined;
	if (!/^\d+$/.test(value)) throw new HttpError("invalid_body", "Last-Event-ID / after: expected a seq (an integer)");
	return Number(value);
}

/** The long-lived streams: one Session's messages across Tasks, and a browser tab's `GET /events`. */
export function streamRoutes(app: Hono<AppEnv>, state: ServerState): void {
	const { registry } = state;

	app.get("/chat/sessions/:id/events", (c) => {
		const hosted = registry.get(c.req.param("id"));
		const after = resumePoint(c);
		const viewer = openViewer(c, state, after);
		const listener: SessionListener = {
			message: (m, frame) => viewer.sendMessage(m, frame),
			ended: () => viewer.end(),
		};
		viewer.replay(hosted.log.subscribe(after, listener));
		viewer.onClose(() => hosted.unsubscribe(listener));
		return RESPONSE_ALREADY_SENT;
	});

	app.get("/events", async (c) => {
		const watchedId = c.req.query("session");
		const watched = watchedId === undefined || watchedId === "" ? undefined : registry.get(watchedId);
		const after = resumePoint(c);
		const events = heldEvents(state.host.bus);
		const snapshot = await registry.summaries().catch((error: unknown) => {
			events.unsubscribe();
			throw error;
		});
		const viewer = openViewer(c, state, after);
		viewer.sendEvent({ type: "sessions_snapshot", sessions: snapshot });
		events.attach(viewer);
		if (watched !== undefined) {
			const listener: SessionListener = { message: (m, frame) => viewer.sendMessage(m, frame) };
			viewer.replay(watched.log.subscribe(after, listener));
			viewer.onClose(() => watched.unsubscribe(listener));
		}
		return RESPONSE_ALREADY_SENT;
	});
}

/**
 * The bus subscribed before `GET /events` builds its snapshot, its events held until the viewer
 * exists: a change published while the snapshot is built is then in the snapshot or after it,
 * never in neither. One the snapshot already shows comes again after it: harmless, the latest
 * frame about a Session stands.
 */
function heldEvents(bus: EventBus): { unsubscribe: () => void; attach: (viewer: SseViewer) => void } {
	const held: BusEvent[] = [];
	let send = (event: BusEvent): void => {
		held.push(event);
	};
	const unsubscribe = bus.subscribe((event) => send(event));
	return {
		unsubscribe,
		/** What was held, in order, then every event as it comes. */
		attach(viewer) {
			for (const event of held.splice(0)) viewer.sendEvent(event);
			send = (event) => viewer.sendEvent(event);
			viewer.onClose(unsubscribe);
		},
	};
}

import type { OmniMessage } from "@omniloop/core";
import type { Context } from "hono";
import type { SessionListener } from "../host/log/session-log.js";
import type { AppEnv, ServerState } from "../server-state.js";
import { SseViewer } from "./viewer.js";

/**
 * Starts an SSE response on the Node response itself; the route then returns RESPONSE_ALREADY_SENT.
 * `after` is where the reader resumes (Last-Event-ID): no frame at or below it is ever sent, whatever
 * reaches the viewer first.
 */
export function openViewer(c: Context<AppEnv>, state: ServerState, after?: number): SseViewer {
	const viewer = new SseViewer(c.env.outgoing, state.viewer, state.flusher, state.metrics, after);
	state.metrics.viewers++;
	viewer.onClose(() => state.metrics.viewers--);
	return viewer;
}

/**
 * A Session listener that holds messages until its viewer exists: a Task starts (and may emit)
 * before the response is opened, because a 409 must still be possible until then.
 */
export class ViewerListener implements SessionListener {
	private held: OmniMessage[] = [];
	private viewer: SseViewer | undefined;
	private over = false;

	attach(viewer: SseViewer): void {
		this.viewer = viewer;
		viewer.replay(this.held);
		this.held = [];
		if (this.over) viewer.end();
	}

	message(message: OmniMessage, frame: string): void {
		if (this.viewer === undefined) this.held.push(message);
		else this.viewer.sendMessage(message, frame);
	}

	ended(): void {
		this.over = true;
		this.viewer?.end();
	}
}

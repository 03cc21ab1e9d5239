import type { ServerResponse } from "node:http";
import type { OmniMessage } from "@omniloop/core";
import type { Flushable, Flusher } from "./flusher.js";
import { eventFrame, HEARTBEAT_FRAME, messageFrame } from "./frames.js";

export interface ViewerSettings {
	/** Frames a viewer may have queued; one more and it is cut off (it catches up by replay). */
	viewerQueueMessages: number;
	/** How long a write may wait for the socket to drain before the viewer is cut off. */
	stallTimeoutMs: number;
	heartbeatMs: number;
}

export interface ViewerCounters {
	framesSent(count: number): void;
	viewerCut(reason: "queue_full" | "stalled"): void;
}

/**
 * One SSE connection, written to the Node response directly (not through Web Streams: a third of
 * the CPU). Frames wait in a bounded queue and are written in one write per flush. A viewer that
 * stops reading is destroyed — its socket, not just the stream — once its queue is full or a
 * write has not drained within the stall timeout; the Task never waits for it.
 */
export class SseViewer implements Flushable {
	/**
	 * The frames queued since the last flush, as one string (a burst joins as V8 ropes, flattened
	 * once by the write): one frame a flush is the common case, and an array there was one more
	 * allocation per message.
	 */
	private queued = "";
	private queuedCount = 0;
	private waitingForDrain = false;
	private stallTimer: NodeJS.Timeout | undefined;
	private readonly heartbeat: NodeJS.Timeout;
	private ending = false;
	private closed = false;
	private readonly closeListeners: (() => void)[] = [];
	/** The highest seq sent: replay and live may overlap at their seam, and nothing goes out twice. */
	lastSeq: number;

	constructor(
		private readonly res: ServerResponse,
		private readonly settings: ViewerSettings,
		private readonly flusher: Flusher,
		private readonly counters: ViewerCounters,
		after = -1,
	) {
		this.lastSeq = after;
		res.writeHead(200, {
			"content-type": "text/event-stream; charset=utf-8",
			"cache-control": "no-cache, no-transform",
			connection: "keep-alive",
			"x-accel-buffering": "no",
			"x-content-type-options": "nosniff",
		});
		res.flushHeaders();
		res.on("close", () => this.closeNow());
		res.on("drain", () => this.onDrain());
		this.heartbeat = setInterval(() => this.push(HEARTBEAT_FRAME), settings.heartbeatMs);
		this.heartbeat.unref();
	}

	get isClosed(): boolean {
		return this.closed;
	}

	/** Queues a message (its frame, when the caller made it once for every viewer) unless this viewer already has it (seq at or below the last one sent). */
	sendMessage(message: OmniMessage, frame?: string): void {
		if (message.seq <= this.lastSeq) return;
		this.lastSeq = message.seq;
		this.push(frame ?? messageFrame(message));
	}

	/**
	 * Queues a replay backlog. It is not held to the queue bound (a long history is not a slow
	 * reader); what comes after is.
	 */
	replay(messages: readonly OmniMessage[]): void {
		if (this.closed) return;
		for (const message of messages) {
			if (message.seq <= this.lastSeq) continue;
			this.lastSeq = message.seq;
			this.enqueue(messageFrame(message));
		}
		if (!this.waitingForDrain && this.queuedCount > 0) this.flusher.schedule(this);
	}

	sendEvent(event: { type: string; [key: string]: unknown }): void {
		this.push(eventFrame(event));
	}

	/** Ends the response once everything queued is written. */
	end(): void {
		if (this.closed || this.ending) return;
		this.ending = true;
		this.flusher.schedule(this);
	}

	onClose(listener: () => void): void {
		if (this.closed) listener();
		else this.closeListeners.push(listener);
	}

	/** Cuts the viewer off: destroys the socket, so a half-closed one cannot linger (CLOSE_WAIT). */
	destroy(): void {
		this.res.destroy();
		this.res.socket?.destroy();
		this.closeNow();
	}

	flush(): void {
		if (this.closed || this.waitingForDrain) return;
		if (this.queuedCount > 0) {
			const chunk = this.queued;
			this.counters.framesSent(this.queuedCount);
			this.queued = "";
			this.queuedCount = 0;
			if (!this.res.write(chunk)) {
				this.waitingForDrain = true;
				this.stallTimer = setTimeout(() => {
					this.counters.viewerCut("stalled");
					this.destroy();
				}, this.settings.stallTimeoutMs);
				return;
			}
		}
		if (this.ending) {
			this.res.end();
			this.closeNow();
		}
	}

	private push(frame: string): void {
		if (this.closed) return;
		if (this.queuedCount >= this.settings.viewerQueueMessages && this.waitingForDrain) {
			this.counters.viewerCut("queue_full");
			this.destroy();
			return;
		}
		this.enqueue(frame);
		if (!this.waitingForDrain) this.flusher.schedule(this);
	}

	private enqueue(frame: string): void {
		this.queued = this.queuedCount === 0 ? frame : this.queued + frame;
		this.queuedCount++;
	}

	private onDrain(): void {
		this.waitingForDrain = false;
		if (this.stallTimer !== undefined) clearTimeout(this.stallTimer);
		this.stallTimer = undefined;
		this.flush();
	}

	private closeNow(): void {
		if (this.closed) return;
		this.closed = true;
		this.queued = "";
		this.queuedCount = 0;
		clearInterval(this.heartbeat);
		if (this.stallTimer !== undefined) clearTimeout(this.stallTimer);
		for (const listener of this.closeListeners.splice(0)) listener();
	}
}

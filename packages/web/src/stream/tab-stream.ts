import { ApiError, type OmniMessage, type RouteFrame, readFrames, type ServerEvent } from "@omniloop/client";
import { client } from "../api/http.js";

export type ConnectionState = "connecting" | "open" | "down";

export interface TabStreamHandlers {
	/** A `GET /events` frame without an id: the sessions snapshot, a status change, a credential. */
	event(event: ServerEvent): void;
	/** The watched Session's messages, in seq order, batched (one call per ~frame, not per token). */
	messages(sessionId: string, messages: OmniMessage[]): void;
	/** Where to resume the watched Session: the last seq this tab holds (0: everything). */
	resumeFrom(sessionId: string): number;
	connection(state: ConnectionState): void;
}

const BATCH_MS = 16;
const RETRY_MS = [250, 500, 1000, 2000, 4000];
/**
 * The server sends a heartbeat at least every 15 s. Silence for this long is a connection that
 * died without closing (a laptop's sleep, a lost network): it is dropped and opened again.
 */
const SILENCE_MS = 45_000;

/**
 * The tab's one event stream: `GET /events?session=<watched>&after=<last seq>`. A drop (network,
 * server restart, a viewer cut off for falling behind) reconnects after a short wait and resumes
 * after the last seq this tab applied, so nothing is lost and nothing comes twice. Watching another
 * Session reconnects with that Session's resume point.
 */
export class TabStream {
	private watched: string | undefined;
	private controller: AbortController | undefined;
	private failures = 0;
	private retryTimer: ReturnType<typeof setTimeout> | undefined;
	private batch: OmniMessage[] = [];
	private batchSession: string | undefined;
	private batchTimer: ReturnType<typeof setTimeout> | undefined;
	private stopped = false;

	constructor(private readonly handlers: TabStreamHandlers) {}

	/** Starts (or restarts) the stream, watching `sessionId` (or no Session). */
	watch(sessionId: string | undefined): void {
		if (this.controller !== undefined && sessionId === this.watched) return;
		this.watched = sessionId;
		this.reconnectNow();
	}

	/** Drops the connection and opens it again at once (tests and "reconnect" both use it). */
	reconnectNow(): void {
		this.flushBatch();
		this.controller?.abort();
		if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
		this.retryTimer = undefined;
		this.failures = 0;
		void this.connect();
	}

	stop(): void {
		this.stopped = true;
		this.controller?.abort();
		if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
	}

	private async connect(): Promise<void> {
		const controller = new AbortController();
		this.controller = controller;
		const sessionId = this.watched;
		this.handlers.connection("connecting");
		// This connection alone: silence drops it (and the retry below opens another), a stop drops it for good.
		const connection = new AbortController();
		controller.signal.addEventListener("abort", () => connection.abort(), { once: true });
		try {
			const query = sessionId === undefined ? {} : { session: sessionId, after: this.handlers.resumeFrom(sessionId) };
			const response = await client.request("GET /events", {
				query,
				headers: { accept: "text/event-stream" },
				signal: connection.signal,
			});
			if (response.body === null) throw new Error("GET /events answered no body");
			this.handlers.connection("open");
			this.failures = 0;
			await this.read(response.body, sessionId, controller.signal, () => connection.abort());
		} catch (error) {
			if (error instanceof ApiError && error.status === 401) {
				// The client marked the token refused (api/http.ts): the tab asks for one and starts a new stream with it.
				this.handlers.connection("down");
				return;
			}
			if (error instanceof ApiError && error.status === 404 && sessionId !== undefined) {
				// The watched Session is gone (deleted, or a stale link): watch none, keep the rest.
				this.watched = undefined;
				void this.connect();
				return;
			}
			// A drop or a refused connection: either way, the retry below resumes it.
		}
		if (controller.signal.aborted || this.stopped) return;
		this.flushBatch();
		this.handlers.connection("down");
		const wait = RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)] ?? 4000;
		this.failures++;
		this.retryTimer = setTimeout(() => void this.connect(), wait);
	}

	/** The frames of one connection (read with the client's SSE reader), until it ends, drops or goes silent. */
	private async read(
		stream: ReadableStream<Uint8Array>,
		sessionId: string | undefined,
		signal: AbortSignal,
		drop: () => void,
	) {
		let silence: ReturnType<typeof setTimeout> | undefined;
		const heard = () => {
			if (silence !== undefined) clearTimeout(silence);
			silence = setTimeout(drop, SILENCE_MS);
		};
		heard();
		// Any bytes count as life, the server's `: ping` heartbeats too (they are no frame).
		const body = stream.pipeThrough(
			new TransformStream<Uint8Array, Uint8Array>({
				transform(chunk, out) {
					heard();
					out.enqueue(chunk);
				},
			}),
		);
		try {
			for await (const { data } of readFrames<RouteFrame<"GET /events">>(body)) {
				if (signal.aborted) return;
				// A Session's message has a seq (and is its frame's id); a server event has neither.
				if (!("seq" in data)) {
					this.flushBatch();
					this.handlers.event(data);
				} else if (sessionId !== undefined) this.queue(sessionId, data);
			}
		} finally {
			clearTimeout(silence);
		}
	}

	private queue(sessionId: string, message: OmniMessage): void {
		if (this.batchSession !== sessionId) this.flushBatch();
		this.batchSession = sessionId;
		this.batch.push(message);
		this.batchTimer ??= setTimeout(() => this.flushBatch(), BATCH_MS);
	}

	private flushBatch(): void {
		if (this.batchTimer !== undefined) clearTimeout(this.batchTimer);
		this.batchTimer = undefined;
		const messages = this.batch;
		const sessionId = this.batchSession;
		this.batch = [];
		if (sessionId !== undefined && messages.length > 0) this.handlers.messages(sessionId, messages);
	}
}

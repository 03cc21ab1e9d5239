import type { OmniMessage, ServerEvent } from "@omniloop/client";
import { createParser } from "eventsource-parser";
import { authorization, useToken } from "../api/token.js";

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
		const query = new URLSearchParams();
		if (sessionId !== undefined) {
			query.set("session", sessionId);
			query.set("after", String(this.handlers.resumeFrom(sessionId)));
		}
		try {
			const { token } = useToken.getState();
			const response = await fetch(`/events?${query}`, {
				credentials: "omit",
				signal: controller.signal,
				headers: { accept: "text/event-stream", ...authorization(token) },
			});
			if (response.status === 401) {
				// The tab asks for a token and starts a new stream with it; no retry with this one.
				useToken.getState().refuse(token);
				this.handlers.connection("down");
				return;
			}
			if (response.status === 404 && sessionId !== undefined) {
				// The watched Session is gone (deleted, or a stale link): watch none, keep the rest.
				this.watched = undefined;
				void this.connect();
				return;
			}
			if (!response.ok || response.body === null) throw new Error(`GET /events: ${response.status}`);
			this.handlers.connection("open");
			this.failures = 0;
			await this.read(response.body, sessionId, controller.signal);
		} catch {
			// A drop or a refused connection: either way, the retry below resumes it.
		}
		if (controller.signal.aborted || this.stopped) return;
		this.flushBatch();
		this.handlers.connection("down");
		const wait = RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)] ?? 4000;
		this.failures++;
		this.retryTimer = setTimeout(() => void this.connect(), wait);
	}

	private async read(body: ReadableStream<Uint8Array>, sessionId: string | undefined, signal: AbortSignal) {
		const reader = body.getReader();
		const decoder = new TextDecoder();
		let silence: ReturnType<typeof setTimeout> | undefined;
		const heard = () => {
			if (silence !== undefined) clearTimeout(silence);
			silence = setTimeout(() => void reader.cancel(), SILENCE_MS);
		};
		heard();
		const parser = createParser({
			onEvent: (frame) => {
				if (signal.aborted) return;
				const data = JSON.parse(frame.data) as OmniMessage | ServerEvent;
				if (frame.id !== undefined && sessionId !== undefined) this.queue(sessionId, data as OmniMessage);
				else {
					this.flushBatch();
					this.handlers.event(data as ServerEvent);
				}
			},
		});
		try {
			for (;;) {
				const { value, done } = await reader.read();
				if (done || signal.aborted) return;
				heard();
				parser.feed(decoder.decode(value, { stream: true }));
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

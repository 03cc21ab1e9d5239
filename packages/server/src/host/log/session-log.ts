import { type OmniMessage, SessionStore } from "@omniloop/core";
import { messageFrame } from "../../sse/frames.js";
import type { UsageRow } from "../../store/store.js";
import { RecentWindow } from "./recent-window.js";
import { TraceDamageLog } from "./trace-damage.js";

/** A reader of a Session's messages: an SSE stream. `ended` marks the end of the work it watched. */
export interface SessionListener {
	/** `frame` is the message's SSE frame, serialized once for every reader. */
	message(message: OmniMessage, frame: string): void;
	ended?(): void;
}

/**
 * What a Session emitted and who reads it: the Trace for history, a recent window for what the
 * Trace lacks (partials, lines not flushed yet), and the live readers.
 */
export class SessionLog {
	protected readonly window = new RecentWindow();
	protected readonly listeners = new Set<SessionListener>();
	/** The damaged lines its reads of the Trace found. */
	readonly damage: TraceDamageLog;
	private readonly sessions: SessionStore;

	constructor(
		home: string,
		protected readonly sessionId: string,
	) {
		this.sessions = new SessionStore(home);
		this.damage = new TraceDamageLog(this.sessions, sessionId);
	}

	beginTask(): void {
		this.window.beginTask();
	}

	endTask(): void {
		this.window.endTask();
	}

	/**
	 * Records a message and hands it to every reader, and to `followers` (readers of this Task only).
	 * `usage` is a `token_usage` message's usage row: a log that writes the message durably writes it
	 * in the same statement (cluster/events/event-log.ts); this one keeps messages in memory only.
	 */
	publish(
		message: OmniMessage,
		followers: ReadonlySet<SessionListener>,
		report: (error: unknown) => void,
		_usage?: UsageRow,
	): void {
		this.window.add(message);
		if (this.listeners.size === 0 && followers.size === 0) return;
		const frame = messageFrame(message);
		for (const listener of this.listeners) deliver(listener, message, frame, report);
		if (followers.size === 0) return;
		for (const follower of followers) if (!this.listeners.has(follower)) deliver(follower, message, frame, report);
	}

	/** Ends every reader's stream (the Session was deleted). */
	endAll(): void {
		for (const listener of [...this.listeners]) listener.ended?.();
		this.listeners.clear();
	}

	/**
	 * Every message after `after` (partials only while still in the recent window), and from then
	 * on the live ones, to `listener`. Synchronous, so no message can fall between the two.
	 */
	subscribe(after: number | undefined, listener: SessionListener): OmniMessage[] {
		const backlog = after === undefined ? [] : this.messagesAfter(after, true);
		this.listeners.add(listener);
		return backlog;
	}

	unsubscribe(listener: SessionListener): void {
		this.listeners.delete(listener);
	}

	/** The history as `GET /chat/sessions/:id` serves it (no partials); with Postgres it comes from the database. */
	history(after: number): Promise<OmniMessage[]> {
		return Promise.resolve(this.messagesAfter(after, false));
	}

	/** The history: the Trace's messages after `after`, with what the Trace has not flushed yet. */
	messagesAfter(after: number, partials: boolean): OmniMessage[] {
		const first = this.window.firstSeq;
		const fromTrace =
			first !== undefined && after >= first - 1
				? []
				: this.sessions
						.history(this.sessionId, { after, onDamage: this.damage.seen })
						.filter((m) => first === undefined || m.seq < first);
		const recent = this.window.after(after, partials);
		return fromTrace.length === 0 ? recent : [...fromTrace, ...recent];
	}
}

/** A module function, not a closure: this runs once per message per reader. */
function deliver(listener: SessionListener, message: OmniMessage, frame: string, report: (error: unknown) => void) {
	try {
		listener.message(message, frame);
	} catch (error) {
		report(error);
	}
}

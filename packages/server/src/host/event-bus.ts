import type { ServerEvent as WireEvent } from "@omniloop/client/wire";

/**
 * What `GET /events` sends besides a watched Session's messages and its first snapshot (the
 * wire's events; a `store_error` is a store write that failed, host/store-failures.ts).
 */
export type ServerEvent = Exclude<WireEvent, { type: "sessions_snapshot" }>;

/** Fans server events out to every open `GET /events` stream. */
export class EventBus {
	private readonly listeners = new Set<(event: ServerEvent) => void>();

	subscribe(listener: (event: ServerEvent) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	publish(event: ServerEvent): void {
		for (const listener of this.listeners) listener(event);
	}
}

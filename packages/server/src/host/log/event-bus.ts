import type { ServerEvent as WireEvent } from "@omniloop/client/wire";

/**
 * What `GET /events` sends besides a watched Session's messages and its first snapshot (the
 * wire's events; a `store_error` is a store write that failed, host/store-failures.ts).
 */
export type ServerEvent = Exclude<WireEvent, { type: "sessions_snapshot" }>;

/**
 * What the bus carries: the events, and a later `sessions_snapshot` for every open stream (the
 * cluster's relay sends one when it may have missed events: cluster/events/bus-relay.ts).
 */
export type BusEvent = ServerEvent | Extract<WireEvent, { type: "sessions_snapshot" }>;

/** Fans server events out to every open `GET /events` stream. */
export class EventBus {
	private readonly listeners = new Set<(event: BusEvent) => void>();

	subscribe(listener: (event: BusEvent) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	publish(event: BusEvent): void {
		for (const listener of this.listeners) listener(event);
	}
}

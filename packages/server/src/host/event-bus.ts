/** What `GET /events` sends besides a watched Session's messages. */
export type ServerEvent =
	| { type: "session_status"; sessionId: string; status: string; lock: { reason: "auth"; credential: string } | null }
	| { type: "session_deleted"; sessionId: string }
	| { type: "credential_updated"; name: string }
	/** A store write failed (host/store-failures.ts): `retrying` when it is kept and tried again. */
	| { type: "store_error"; sessionId: string | null; operation: string; message: string; retrying: boolean };

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

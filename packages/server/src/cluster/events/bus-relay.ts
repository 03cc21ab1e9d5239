import type pg from "pg";
import type { RelayedEvents } from "../../coordination/coordinator.js";
import type { BusEvent, EventBus, ServerEvent } from "../../host/log/event-bus.js";
import type { Notifications } from "./notifications.js";

/** Server events (a Session's status, its deletion, a credential stored) between the processes on one database. */
export const BUS_CHANNEL = "omniloop_bus";

const RELAYED = new Set<BusEvent["type"]>(["session_status", "session_deleted", "credential_updated"]);

/**
 * Relays this process's `session_status`, `session_deleted` and `credential_updated` events to
 * the others, and theirs to this process's `GET /events` streams: a browser tab on any process
 * sees a Task on another go busy and idle. A deletion or a credential also reaches the process's
 * Sessions (`RelayedEvents`). The payload names its process, so none hears itself.
 *
 * A NOTIFY is lost while this process's LISTEN connection is down. When it is back, the process
 * catches up (`RelayedEvents.missed`: credentials stored meanwhile) and sends its tabs a fresh
 * `sessions_snapshot`, the same frame `GET /events` starts with: a Task another process ended,
 * a Session it deleted, a lock it lifted meanwhile all show. The events published while the
 * snapshot is built are sent again after it, so the latest frame about a Session stays the latest.
 */
export class BusRelay {
	private unsubscribe: () => void = () => {};
	private relaying = false;
	private closed = false;

	constructor(
		private readonly pool: pg.Pool,
		private readonly notifications: Notifications,
		private readonly owner: string,
		private readonly report: (error: unknown) => void,
	) {}

	async start(bus: EventBus, handlers: RelayedEvents): Promise<void> {
		this.notifications.onReconnect(() => void this.caughtUp(bus, handlers));
		await this.notifications.listen(BUS_CHANNEL, (payload) => void this.received(bus, handlers, payload));
		this.unsubscribe = bus.subscribe((event) => {
			if (this.relaying || !RELAYED.has(event.type)) return;
			this.pool
				.query("select pg_notify($1, $2)", [BUS_CHANNEL, JSON.stringify({ from: this.owner, event })])
				.catch((error: unknown) => this.report(error));
		});
	}

	async close(): Promise<void> {
		this.closed = true;
		this.unsubscribe();
	}

	/** After a lost LISTEN connection: what was missed, then a fresh snapshot to every tab. */
	private async caughtUp(bus: EventBus, handlers: RelayedEvents): Promise<void> {
		if (this.closed) return;
		const during: BusEvent[] = [];
		const stopHolding = bus.subscribe((event) => {
			if (event.type === "session_status" || event.type === "session_deleted") during.push(event);
		});
		let sessions: Awaited<ReturnType<RelayedEvents["missed"]>>;
		try {
			sessions = await handlers.missed();
		} catch (error) {
			this.report(error);
			return;
		} finally {
			stopHolding();
		}
		if (this.closed) return;
		// Published here only: every process catches up on its own reconnect.
		this.relaying = true;
		try {
			bus.publish({ type: "sessions_snapshot", sessions });
			for (const event of during) bus.publish(event);
		} finally {
			this.relaying = false;
		}
	}

	private async received(bus: EventBus, handlers: RelayedEvents, payload: string): Promise<void> {
		let parsed: { from: string; event: ServerEvent };
		try {
			parsed = JSON.parse(payload) as { from: string; event: ServerEvent };
		} catch (error) {
			this.report(error);
			return;
		}
		if (parsed.from === this.owner) return;
		const { event } = parsed;
		// Handled before this process's tabs hear of it: a retry they make then finds the change applied.
		try {
			if (event.type === "session_deleted") await handlers.sessionDeleted(event.sessionId);
			if (event.type === "credential_updated") await handlers.credentialUpdated(event.name);
		} catch (error) {
			this.report(error);
		}
		this.relaying = true;
		try {
			bus.publish(event);
		} finally {
			this.relaying = false;
		}
	}
}

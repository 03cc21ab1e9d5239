import type pg from "pg";
import type { EventBus, ServerEvent } from "../host/event-bus.js";
import type { Notifications } from "./notifications.js";

/** Server events (a Session's status, its deletion) between the processes on one database. */
export const BUS_CHANNEL = "omniloop_bus";

/**
 * Relays this process's `session_status` and `session_deleted` events to the others, and
 * theirs to this process's `GET /events` streams: a browser tab on any process sees a Task on
 * another go busy and idle. The payload names its process, so none hears itself.
 */
export class BusRelay {
	private unsubscribe: () => void = () => {};
	private relaying = false;

	constructor(
		private readonly pool: pg.Pool,
		private readonly notifications: Notifications,
		private readonly owner: string,
		private readonly report: (error: unknown) => void,
	) {}

	async start(bus: EventBus): Promise<void> {
		await this.notifications.listen(BUS_CHANNEL, (payload) => this.received(bus, payload));
		this.unsubscribe = bus.subscribe((event) => {
			if (this.relaying || (event.type !== "session_status" && event.type !== "session_deleted")) return;
			this.pool
				.query("select pg_notify($1, $2)", [BUS_CHANNEL, JSON.stringify({ from: this.owner, event })])
				.catch((error: unknown) => this.report(error));
		});
	}

	async close(): Promise<void> {
		this.unsubscribe();
	}

	private received(bus: EventBus, payload: string): void {
		let parsed: { from: string; event: ServerEvent };
		try {
			parsed = JSON.parse(payload) as { from: string; event: ServerEvent };
		} catch (error) {
			this.report(error);
			return;
		}
		if (parsed.from === this.owner) return;
		this.relaying = true;
		try {
			bus.publish(parsed.event);
		} finally {
			this.relaying = false;
		}
	}
}

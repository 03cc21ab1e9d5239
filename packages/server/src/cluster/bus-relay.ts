import pg from "pg";
import type { EventBus, ServerEvent } from "../host/event-bus.js";
import { poolConfig } from "../store/postgres.js";

/** Server events (a Session's status, its deletion) between the processes on one database. */
export const BUS_CHANNEL = "omniloop_bus";

/**
 * Relays this process's `session_status` and `session_deleted` events to the others, and
 * theirs to this process's `GET /events` streams: a browser tab on any process sees a Task on
 * another go busy and idle. The payload names its process, so none hears itself.
 */
export class BusRelay {
	private listener: pg.Client | undefined;
	private unsubscribe: () => void = () => {};
	private relaying = false;

	constructor(
		private readonly pool: pg.Pool,
		private readonly url: string,
		private readonly owner: string,
		private readonly report: (error: unknown) => void,
	) {}

	async start(bus: EventBus): Promise<void> {
		const client = new pg.Client(poolConfig(this.url));
		client.on("notification", (n) => this.received(bus, n.payload ?? ""));
		client.on("error", (error) => this.report(error));
		await client.connect();
		await client.query(`listen ${BUS_CHANNEL}`);
		this.listener = client;
		this.unsubscribe = bus.subscribe((event) => {
			if (this.relaying || (event.type !== "session_status" && event.type !== "session_deleted")) return;
			this.pool
				.query("select pg_notify($1, $2)", [BUS_CHANNEL, JSON.stringify({ from: this.owner, event })])
				.catch((error: unknown) => this.report(error));
		});
	}

	async close(): Promise<void> {
		this.unsubscribe();
		await this.listener?.end().catch(() => {});
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

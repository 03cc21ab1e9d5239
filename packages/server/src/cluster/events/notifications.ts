import pg from "pg";
import { poolConfig } from "../../store/postgres.js";

type Handler = (payload: string) => void;

/** How the LISTEN connections name themselves in `pg_stat_activity`. */
export const LISTEN_APPLICATION = "omniloop-listen";

/**
 * This process's one LISTEN connection, for every channel: Postgres wakes each listening
 * connection of the database at every NOTIFY commit, whatever its channels, so one per process
 * (not one per channel) keeps that cost down. A lost connection is opened again and its channels
 * listened to again; `onReconnect` hooks then catch up on what they may have missed.
 */
export class Notifications {
	private readonly handlers = new Map<string, Handler>();
	private readonly reconnected: (() => void)[] = [];
	private client: pg.Client | undefined;
	/** A connection being opened (by `start`), not yet `client`: `close` ends it too. */
	private opening: pg.Client | undefined;
	private closed = false;
	private restarting = false;

	constructor(
		private readonly url: string,
		private readonly report: (error: unknown) => void,
	) {}

	/** Listens on `channel` (at once when connected, else from `start`). */
	async listen(channel: string, handler: Handler): Promise<void> {
		this.handlers.set(channel, handler);
		await this.client?.query(`listen ${channel}`);
	}

	onReconnect(hook: () => void): void {
		this.reconnected.push(hook);
	}

	/** The connection itself, for reads that must not wait for the pool (undefined while it reconnects). */
	get connection(): pg.Client | undefined {
		return this.client;
	}

	async start(): Promise<void> {
		const client = new pg.Client({ ...poolConfig(this.url), application_name: LISTEN_APPLICATION });
		client.on("notification", (n) => {
			try {
				this.handlers.get(n.channel)?.(n.payload ?? "");
			} catch (error) {
				this.report(error);
			}
		});
		const lost = () => {
			if (this.client === client) this.client = undefined;
			if (this.closed || this.restarting) return;
			this.restarting = true;
			setTimeout(() => void this.restart(), 200).unref();
		};
		client.on("error", (error) => {
			if (!this.closed) this.report(error);
			lost();
		});
		client.on("end", lost);
		this.opening = client;
		try {
			await client.connect();
			for (const channel of this.handlers.keys()) await client.query(`listen ${channel}`);
		} finally {
			if (this.opening === client) this.opening = undefined;
		}
		// Closed meanwhile: the connection is not kept.
		if (this.closed) {
			await client.end().catch(() => {});
			return;
		}
		this.client = client;
	}

	async close(): Promise<void> {
		this.closed = true;
		await this.client?.end().catch(() => {});
		this.client = undefined;
		// A reconnect still under way (its error, once ended, is the close's, not a failure).
		await this.opening?.end().catch(() => {});
	}

	private async restart(): Promise<void> {
		if (this.closed) return;
		try {
			await this.start();
			if (this.closed) return;
			this.restarting = false;
			for (const hook of this.reconnected) hook();
		} catch (error) {
			// A reconnect the process's close cut short is no failure.
			if (this.closed) return;
			this.report(error);
			setTimeout(() => void this.restart(), 1000).unref();
		}
	}
}

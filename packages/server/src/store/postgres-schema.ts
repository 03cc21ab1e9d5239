import type { Database } from "./schema.js";

/**
 * The tables only Postgres has: with several processes on one database, who runs which Session's
 * Task (a lease), and what each Session emitted (the event log every process reads).
 */
export interface ClusterDatabase extends Database {
	session_leases: SessionLeasesTable;
	session_events: SessionEventsTable;
}

export interface SessionLeasesTable {
	session_id: string;
	/** The process holding it (a random id per process). */
	owner: string;
	/** Database time in ms: the lease is free from then on, unless renewed. */
	expires_at: number;
}

export interface SessionEventsTable {
	session_id: string;
	seq: number;
	/** Partials are kept for the running Task only (the complete messages say the same). */
	partial: boolean;
	/** The OmniMessage as JSON, exactly as its SSE frame carries it. */
	body: string;
}

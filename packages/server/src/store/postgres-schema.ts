import type { Generated } from "kysely";
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
	/** Database time in ms: the lease is free from then on, unless renewed (0 once released). */
	expires_at: number;
	/** The fencing token of the current claim: a write for the Session names it, and is refused once a later claim took another. */
	epoch: Generated<number>;
	/** Above every seq the Session's event log has held (kept at each claim). */
	seq_floor: Generated<number>;
}

export interface SessionEventsTable {
	session_id: string;
	seq: number;
	/** Partials are kept for the running Task only (the complete messages say the same). */
	partial: boolean;
	/** The OmniMessage as JSON, exactly as its SSE frame carries it. */
	body: string;
	/** The epoch of the lease under which the row was written. */
	epoch: Generated<number>;
}

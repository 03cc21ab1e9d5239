import type pg from "pg";
import type { SessionAction } from "../coordination/coordinator.js";
import { DB_NOW_MS } from "./leases/leases.js";

/** An action the caller now owns: marked done in the database, to be carried out here. */
export interface TakenAction {
	sessionId: string;
	action: SessionAction;
}

/** The lease a process holds on a Session: the actions it may take are fenced by it. */
export interface HeldLease {
	sessionId: string;
	epoch: number;
}

const NOW_MS = DB_NOW_MS;

/**
 * The fence of a take: the lease still has the taker's epoch and has not run out, read `for key
 * share` so a claim by another process waits for this commit (or this statement sees the claim
 * and takes nothing). So an action is taken by one holder only, and never by one paused past its
 * lease: it stays for the process that takes the Task over.
 */
const FENCE = `exists (select 1 from session_leases l
	where l.session_id = h.session_id and l.epoch = h.epoch and l.expires_at >= ${NOW_MS} for key share of l)`;

interface Row {
	id: number;
	session_id: string;
	kind: string;
	text: string | null;
}

/**
 * `session_actions`: the record of steer and abort across processes (docs/cluster.md). A NOTIFY
 * only hints that there is one; the holder takes what is recorded on the hint and at each lease
 * renewal, a process that takes the Task over takes what its dead holder left, and each action
 * is taken (marked done) exactly once, in the statement that hands it over.
 */
export class SessionActions {
	constructor(private readonly pool: pg.Pool) {}

	/**
	 * Records `action` for the Task that runs now under the Session's live lease (the epoch is the
	 * lease's, in the same statement); false when no live process holds the Session.
	 */
	async record(sessionId: string, action: SessionAction): Promise<boolean> {
		const result = await this.pool.query(
			`insert into session_actions (session_id, epoch, kind, text, created_at)
			select session_id, epoch, $2, $3, ${NOW_MS} from session_leases
			where session_id = $1 and expires_at >= ${NOW_MS}`,
			[sessionId, action.kind, action.kind === "steer" ? action.text : null],
		);
		return (result.rowCount ?? 0) > 0;
	}

	/**
	 * Takes the actions recorded for the Tasks these leases run (at their epoch or before: a
	 * takeover's Task goes on with the one its dead holder ran), in the order they were posted.
	 */
	async take(leases: readonly HeldLease[]): Promise<TakenAction[]> {
		if (leases.length === 0) return [];
		const result = await this.pool.query<Row>(
			`update session_actions a set done_at = ${NOW_MS}, outcome = 'applied'
			from unnest($1::text[], $2::int8[]) as h(session_id, epoch)
			where a.session_id = h.session_id and a.done_at is null and a.epoch <= h.epoch and ${FENCE}
			returning a.id, a.session_id, a.kind, a.text`,
			[leases.map((l) => l.sessionId), leases.map((l) => l.epoch)],
		);
		return result.rows
			.sort((x, y) => x.id - y.id)
			.map((row) => ({
				sessionId: row.session_id,
				action: row.kind === "abort" ? { kind: "abort" } : { kind: "steer", text: row.text ?? "" },
			}));
	}

	/**
	 * A new Task begins under `lease` (it does not continue the one before): what was recorded for
	 * earlier Tasks is over, and is marked so, never carried out.
	 */
	async dropEarlier(lease: HeldLease): Promise<void> {
		await this.pool.query(
			`update session_actions a set done_at = ${NOW_MS}, outcome = 'dropped'
			from (select $1::text as session_id, $2::int8 as epoch) as h
			where a.session_id = h.session_id and a.done_at is null and a.epoch < h.epoch and ${FENCE}`,
			[lease.sessionId, lease.epoch],
		);
	}

	/** The Session is deleted: its record goes with it. */
	async deleteSession(sessionId: string): Promise<void> {
		await this.pool.query("delete from session_actions where session_id = $1", [sessionId]);
	}
}

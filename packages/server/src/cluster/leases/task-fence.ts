import { type SqlBool, sql } from "kysely";
import type pg from "pg";
import type { SessionFence } from "../../coordination/session-fence.js";
import type { UsageRow } from "../../store/store.js";
import type { ClusterSessionLog } from "../cluster-session-log.js";
import type { EventLogWriter } from "../events/event-log.js";
import { addFencedUsage, usageStored } from "./fenced-usage.js";
import { LeaseLostError, type Leases } from "./leases.js";

/**
 * What a Task here does only under its Session's lease, checked at the moment it does it: a tool
 * start and a question wait for their rows to be committed (`shipTrace`), a model request or a
 * tool start is refused once the lease is over (`guard`), a usage row is written fenced
 * (`addUsage`), and so are its writes of the store's rows (`sessionFence`). docs/cluster.md
 */
export class TaskFence {
	constructor(
		private readonly pool: pg.Pool,
		private readonly leases: Leases,
		private readonly writer: EventLogWriter,
		private readonly logOf: (sessionId: string) => ClusterSessionLog | undefined,
	) {}

	/**
	 * The Task here is about to start tools or ask a person: what it emitted so far is committed
	 * to the event log first, under the lease's epoch, so a process that takes the Session over
	 * after this one dies sees every call that may have run — and a process that lost the lease
	 * starts nothing (the database refused its rows, or its own clock says the lease is over).
	 */
	async shipTrace(sessionId: string, emittedUpTo?: number): Promise<void> {
		const epoch = this.leases.epoch(sessionId);
		if (epoch === undefined) throw new LeaseLostError(sessionId);
		// What the engine emitted just before (a tool_start, a confirmation_required) may not have
		// been read from its stream yet: the drain must take it too.
		if (emittedUpTo !== undefined) await this.logOf(sessionId)?.readUpTo(emittedUpTo);
		await this.writer.drain(sessionId);
		if (this.writer.wasRefused(sessionId, epoch) || this.leases.epoch(sessionId) !== epoch) {
			throw new LeaseLostError(sessionId);
		}
	}

	/** Throws unless this process still holds the Session: before each model request and each tool start. */
	guard(sessionId: string): void {
		if (!this.leases.holds(sessionId)) throw new LeaseLostError(sessionId);
	}

	/** The lease's epoch, read `for key share` as the event log's rows read it; lost once it is over here. */
	sessionFence(sessionId: string): SessionFence {
		const epoch = this.leases.epoch(sessionId);
		if (epoch === undefined) return { lost: true };
		return {
			lost: false,
			condition: sql<SqlBool>`exists (select 1 from session_leases where session_id = ${sessionId} and epoch = ${epoch} for key share)`,
		};
	}

	/**
	 * A usage row, fenced like the event log. Its `token_usage` row, appended to the event log
	 * before (HostedSession.publish), carries it in the same statement: this waits for that one
	 * and checks the row is in (it writes it, fenced, only when the message never reached the log).
	 */
	async addUsage(row: UsageRow): Promise<void> {
		const epoch = this.leases.epoch(row.sessionId);
		// The usage recorder writes one row at a time for every Session here: it often comes to a
		// row once its Task has ended and let the lease go. The row went in with its message then.
		if (epoch === undefined) {
			if (await usageStored(this.pool, row)) return;
			throw new LeaseLostError(row.sessionId);
		}
		await this.writer.drain(row.sessionId);
		if (this.writer.wasRefused(row.sessionId, epoch)) throw new LeaseLostError(row.sessionId);
		await addFencedUsage(this.pool, row, epoch);
	}
}

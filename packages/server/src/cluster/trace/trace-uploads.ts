import type { EventLogWriter } from "../events/event-log.js";
import type { Leases } from "../leases/leases.js";
import type { TraceSync } from "./trace-sync.js";

/**
 * The Trace uploads of the Tasks running here: each Session's new lines reach the database at
 * least every second and when its Task ends, one upload at a time per Session, under its lease,
 * and never past what the event log holds (TraceSync.upload).
 */
export class TraceUploads {
	/** Sessions whose Task runs here, with their upload in progress. */
	private readonly running = new Map<string, Promise<void>>();
	/** Each Session's floor at this process's last claim: the Trace lines it rebuilt from the event log are durable. */
	private readonly floors = new Map<string, number>();
	private readonly timer: NodeJS.Timeout;

	constructor(
		private readonly traces: TraceSync,
		private readonly leases: Leases,
		private readonly writer: EventLogWriter,
		private readonly report: (error: unknown) => void,
	) {
		this.timer = setInterval(() => {
			for (const id of this.running.keys()) if (this.leases.holds(id)) void this.upload(id);
		}, 1000);
		this.timer.unref();
	}

	/** A Task here begins on the Session, claimed at `floor`. */
	begin(sessionId: string, floor: number): void {
		this.floors.set(sessionId, floor);
		this.running.set(sessionId, Promise.resolve());
	}

	/** The Task here ended (or never began): nothing more of it goes up by itself. */
	end(sessionId: string): void {
		this.running.delete(sessionId);
	}

	/** Uploads the Session's new Trace lines now (after the one in progress). */
	upload(sessionId: string): Promise<void> {
		// Chained after the previous upload, whichever way it went (each reads the file afresh).
		const next = (this.running.get(sessionId) ?? Promise.resolve())
			.catch(() => {})
			.then(() => this.uploadNow(sessionId));
		if (this.running.has(sessionId))
			this.running.set(
				sessionId,
				next.catch(() => {}),
			);
		return next;
	}

	forget(sessionId: string): void {
		this.floors.delete(sessionId);
	}

	close(): void {
		clearInterval(this.timer);
	}

	private async uploadNow(sessionId: string): Promise<void> {
		const epoch = this.leases.epoch(sessionId);
		if (epoch === undefined || this.writer.wasRefused(sessionId, epoch)) return;
		const durableSeq = Math.max(this.floors.get(sessionId) ?? 0, this.writer.committedSeq(sessionId));
		await this.traces.upload(sessionId, epoch, durableSeq).catch(this.report);
	}
}

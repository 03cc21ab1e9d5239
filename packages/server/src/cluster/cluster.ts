import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { HttpError } from "../errors.js";
import type { EventBus } from "../host/event-bus.js";
import type { PostgresStore } from "../store/postgres.js";
import { BusRelay, type RelayedEvents } from "./bus-relay.js";
import { ClusterSessionLog } from "./cluster-session-log.js";
import { EventLogWriter } from "./event-log.js";
import { EventTail } from "./event-tail.js";
import { Leases } from "./leases.js";
import { Notifications } from "./notifications.js";
import { RemoteControl } from "./remote-control.js";
import { TraceSync } from "./trace-sync.js";

export interface ClusterOptions {
	/** This process's omniloop home (its Trace files are copied to and from the database). */
	home: string;
	/** How long a dead process keeps its Sessions busy (`server.leaseMs`). */
	leaseMs: number;
	/** How long partials wait to be written together (one INSERT per Session per batch). */
	batchMs?: number;
	/** How long a finished Task's partials stay in the event log (10 s). */
	partialsKeepMs?: number;
	report(error: unknown): void;
}

/** Workflow leases share the Sessions' table under this prefix. */
const WORKFLOW_KEY = "workflow:";

/** The lease key of a workflow (`workflow:<id>`), beside the Sessions' ids in the leases table. */
export const workflowLeaseKey = (workflowId: string): string => `${WORKFLOW_KEY}${workflowId}`;

/**
 * What this process shares with the others on one Postgres: the leases on Sessions (one Task
 * per Session across all of them), the event log it writes, and the tail it reads. Absent with
 * SQLite (one process).
 */
export class Cluster {
	readonly owner = randomUUID();
	readonly leases: Leases;
	readonly writer: EventLogWriter;
	readonly tail: EventTail;
	readonly control: RemoteControl;
	private readonly relay: BusRelay;
	private readonly notifications: Notifications;
	private readonly traces: TraceSync;
	/** Sessions whose Task runs here, with their Trace upload in progress. */
	private readonly running = new Map<string, Promise<void>>();
	private readonly uploadTimer: NodeJS.Timeout;
	private readonly logs = new Map<string, ClusterSessionLog>();
	/** Pending drops of finished Tasks' partials (the next claim of the Session drops them anyway). */
	private readonly drops = new Set<NodeJS.Timeout>();

	/** How long a dead process's leases last (`server.leaseMs`). */
	get leaseMs(): number {
		return this.options.leaseMs;
	}

	private constructor(
		private readonly pg: PostgresStore,
		private readonly options: ClusterOptions,
	) {
		this.leases = new Leases(pg.db, this.owner, options.leaseMs, options.report);
		this.writer = new EventLogWriter(pg.pool, pg.url, options.batchMs ?? 25, options.report);
		this.notifications = new Notifications(pg.url, options.report);
		this.traces = new TraceSync(pg.pool, options.home);
		// A Task's Trace lines reach the database at least every second (and when it ends).
		this.uploadTimer = setInterval(() => {
			for (const id of this.running.keys()) if (this.leases.holds(id)) void this.upload(id);
		}, 1000);
		this.uploadTimer.unref();
		this.tail = new EventTail(pg.pool, this.notifications, options.report);
		this.control = new RemoteControl(
			pg.pool,
			this.notifications,
			pg.store,
			(id) => this.leases.isHeld(id),
			options.report,
		);
		this.relay = new BusRelay(pg.pool, this.notifications, this.owner, options.report);
		this.leases.onLost = (key) => {
			// A workflow's lease: its driver finds out at its next step (holdsWorkflow).
			if (key.startsWith(WORKFLOW_KEY)) {
				options.report(new Error(`${key}: its lease was lost (the database was out of reach)`));
				return;
			}
			options.report(
				new Error(`session ${key}: its lease was lost (the database was out of reach); its Task is aborted`),
			);
			this.control.abortHere(key);
		};
	}

	static async start(pg: PostgresStore, options: ClusterOptions): Promise<Cluster> {
		const cluster = new Cluster(pg, options);
		await cluster.notifications.start();
		return cluster;
	}

	/** The server's event bus, shared with the other processes from now on. */
	relayBus(bus: EventBus, handlers: RelayedEvents): Promise<void> {
		return this.relay.start(bus, handlers);
	}

	sessionLog(home: string, sessionId: string, running: () => boolean): ClusterSessionLog {
		const log = new ClusterSessionLog(home, sessionId, this.writer, this.tail, running, this.options.report);
		this.logs.set(sessionId, log);
		return log;
	}

	/**
	 * Takes the Session for a Task, or answers 409 `session_busy` when a live process holds it.
	 * Then what the previous holder wrote is read (its readers here must get it before this
	 * Task's first message), its partials go, and confirmations a dead holder left are over.
	 */
	async claim(sessionId: string, closeStale: () => Promise<void>): Promise<void> {
		if (!(await this.leases.claim(sessionId))) {
			throw new HttpError("session_busy", `session ${sessionId} is busy: a Task runs in another server process`);
		}
		try {
			await this.refresh(sessionId, closeStale);
			this.running.set(sessionId, Promise.resolve());
			await this.writer.dropPartials(sessionId);
			await this.pg.store.interruptPendingConfirmations(Date.now(), sessionId);
		} catch (error) {
			this.running.delete(sessionId);
			await this.leases.release(sessionId).catch(this.options.report);
			throw error;
		}
	}

	/**
	 * This process's copy of the Session's Trace becomes what the database holds (a copy loaded
	 * before is closed first), without taking the Session: a takeover reads its unfinished Task.
	 */
	async refresh(sessionId: string, closeStale: () => Promise<void>): Promise<void> {
		await this.tail.catchUp(sessionId);
		await closeStale();
		await this.traces.download(sessionId, await this.tail.lastSeq(sessionId));
	}

	/**
	 * The Task here ended: its messages are committed to the event log, then the lease goes. Its
	 * partials stay a little (`partialsKeepMs`), so viewers on other processes read every seq live.
	 */
	async release(sessionId: string): Promise<void> {
		try {
			await this.writer.drain(sessionId);
			// A process that lost the Session uploads nothing more: the one that took it writes there now.
			if (this.leases.holds(sessionId)) await this.upload(sessionId);
			this.running.delete(sessionId);
			const log = this.logs.get(sessionId);
			if (log !== undefined) {
				this.tail.advance(sessionId, log.lastPublished);
				const upTo = log.lastPublished;
				const timer = setTimeout(() => {
					this.drops.delete(timer);
					this.writer.dropPartials(sessionId, upTo).catch(this.options.report);
				}, this.options.partialsKeepMs ?? 10_000);
				timer.unref();
				this.drops.add(timer);
			}
		} finally {
			await this.leases.release(sessionId);
		}
	}

	/**
	 * A workflow's lease (same table, key `workflow:<id>`): the process that takes up a workflow
	 * holds it while the workflow is unfinished, so a dead process's workflows are taken up by
	 * exactly one living one once it expires, and the others answer 409 `invalid_state`.
	 */
	holdWorkflow(workflowId: string): Promise<boolean> {
		return this.leases.claim(workflowLeaseKey(workflowId));
	}

	/** Does this process still hold the workflow's lease (not lost to a database outage)? */
	holdsWorkflow(workflowId: string): boolean {
		return this.leases.holds(workflowLeaseKey(workflowId));
	}

	releaseWorkflow(workflowId: string): Promise<void> {
		return this.leases.release(workflowLeaseKey(workflowId));
	}

	/** Aborts the Session's Task if another live process runs it; false when none does. */
	async abortElsewhere(sessionId: string): Promise<boolean> {
		if (!(await this.leases.isHeld(sessionId))) return false;
		await this.control.abort(sessionId);
		return true;
	}

	/**
	 * Before a Session is deleted: a Task another live process runs is aborted, and the deletion
	 * waits (up to a lease) until that process has let the Session go, so nothing it writes while
	 * stopping outlives the deletion.
	 */
	async stopElsewhere(sessionId: string): Promise<void> {
		if (this.leases.holds(sessionId) || !(await this.abortElsewhere(sessionId))) return;
		const until = Date.now() + this.options.leaseMs;
		while (Date.now() < until && (await this.leases.isHeld(sessionId))) await sleep(50);
	}

	/** Steers the Session's Task if another live process runs it; false when none does. */
	async steerElsewhere(sessionId: string, text: string): Promise<boolean> {
		if (!(await this.leases.isHeld(sessionId))) return false;
		await this.control.steer(sessionId, text);
		return true;
	}

	/** A Session made here: its first Trace lines go to the database, so any process can run its first Task. */
	async created(sessionId: string): Promise<void> {
		await this.traces.upload(sessionId);
	}

	/**
	 * The Task here is about to start tools or ask a person: its Trace so far goes to the database
	 * first, so a process that takes the Session over after this one dies sees every call that may
	 * have run. A failure reaches the Task (which ends with it) rather than letting a tool run.
	 */
	shipTrace(sessionId: string): Promise<void> {
		if (!this.leases.holds(sessionId)) {
			return Promise.reject(new Error(`session ${sessionId}: its lease was lost; nothing more of its Task runs here`));
		}
		return this.chainUpload(sessionId, () => this.traces.upload(sessionId));
	}

	/** Uploads the Session's new Trace lines, one upload at a time per Session. */
	private upload(sessionId: string): Promise<void> {
		return this.chainUpload(sessionId, () => this.traces.upload(sessionId).catch(this.options.report));
	}

	private chainUpload(sessionId: string, upload: () => Promise<void>): Promise<void> {
		// Chained after the previous upload, whichever way it went (each reads the file afresh).
		const next = (this.running.get(sessionId) ?? Promise.resolve()).catch(() => {}).then(upload);
		if (this.running.has(sessionId))
			this.running.set(
				sessionId,
				next.catch(() => {}),
			);
		return next;
	}

	async deleteSession(sessionId: string): Promise<void> {
		this.forget(sessionId);
		await this.traces.deleteSession(sessionId);
		await this.writer.deleteSession(sessionId);
	}

	/** The Session is gone (deleted here or by another process): nothing of it is kept here. */
	forget(sessionId: string): void {
		this.logs.delete(sessionId);
		this.traces.forget(sessionId);
	}

	async close(): Promise<void> {
		for (const timer of this.drops) clearTimeout(timer);
		clearInterval(this.uploadTimer);
		await this.leases.close();
		await this.writer.close();
		await this.relay.close();
		await this.notifications.close();
	}
}

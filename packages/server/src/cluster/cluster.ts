import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { ApprovalAnswer } from "@omniloop/core";
import { type Expression, type SqlBool, sql } from "kysely";
import type {
	ControlHandler,
	Coordinator,
	EngineHooks,
	HeldWork,
	RelayedEvents,
	WorkflowAction,
} from "../coordination/coordinator.js";
import { HttpError } from "../errors.js";
import type { DecideResult, PendingConfirmation } from "../host/confirmations.js";
import type { EventBus } from "../host/event-bus.js";
import type { PostgresStore } from "../store/postgres.js";
import type { StoredSession, UsageRow } from "../store/store.js";
import { BusRelay } from "./bus-relay.js";
import { ClusterSessionLog } from "./cluster-session-log.js";
import { EventLogWriter } from "./event-log.js";
import { EventTail } from "./event-tail.js";
import { addFencedUsage, usageStored } from "./fenced-usage.js";
import { LeaseLostError, Leases } from "./leases.js";
import { Notifications } from "./notifications.js";
import { RemoteControl } from "./remote-control.js";
import { currentFloor, raiseFloor } from "./seq-floor.js";
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
const workflowLeaseKey = (workflowId: string): string => `${WORKFLOW_KEY}${workflowId}`;

/**
 * The Coordinator of several processes on one Postgres (docs/cluster.md): the leases on Sessions
 * (one Task per Session across all of them) and workflows, the event log it writes, the tail it
 * reads, and the controls of Tasks other processes run.
 */
export class Cluster implements Coordinator {
	readonly owner = randomUUID();
	readonly leases: Leases;
	readonly writer: EventLogWriter;
	readonly tail: EventTail;
	readonly control: RemoteControl;
	readonly importsHomeUsage = false;
	readonly engineHooks: EngineHooks = {
		shipTrace: (sessionId, emittedUpTo) => this.shipTrace(sessionId, emittedUpTo),
		guard: (sessionId) => this.guard(sessionId),
	};
	private readonly relay: BusRelay;
	private readonly notifications: Notifications;
	private readonly traces: TraceSync;
	/** Sessions whose Task runs here, with their Trace upload in progress. */
	private readonly running = new Map<string, Promise<void>>();
	private readonly uploadTimer: NodeJS.Timeout;
	private readonly logs = new Map<string, ClusterSessionLog>();
	/** Each Session's floor at this process's last claim: the Trace lines it rebuilt from the event log are durable. */
	private readonly floors = new Map<string, number>();
	/** Pending drops of finished Tasks' partials (the next claim of the Session drops them anyway). */
	private readonly drops = new Set<NodeJS.Timeout>();

	private constructor(
		private readonly pg: PostgresStore,
		private readonly options: ClusterOptions,
	) {
		this.leases = new Leases(pg.db, this.owner, options.leaseMs, options.report);
		this.writer = new EventLogWriter(pg.pool, pg.url, options.batchMs ?? 25, options.report);
		this.notifications = new Notifications(pg.url, options.report);
		this.traces = new TraceSync(pg.pool, options.home, options.report);
		// A Task's Trace lines reach the database at least every second (and when it ends).
		this.uploadTimer = setInterval(() => {
			for (const id of this.running.keys()) if (this.leases.holds(id)) void this.upload(id);
		}, 1000);
		this.writer.onRefused = (sessionId, epoch) => {
			if (this.leases.epoch(sessionId) !== epoch) return;
			options.report(new Error(`session ${sessionId}: its messages could not be written; its Task is aborted`));
			this.control.abortHere(sessionId);
		};
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
			options.report(new Error(`session ${key}: its lease was lost; its Task is aborted`));
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
		const log = new ClusterSessionLog(
			home,
			sessionId,
			this.writer,
			this.tail,
			running,
			() => this.leases.epoch(sessionId),
			(compactionSeq) => this.traces.begunBy(sessionId, compactionSeq),
			this.options.report,
		);
		this.logs.set(sessionId, log);
		return log;
	}

	/**
	 * Takes the Session for a Task, or answers 409 `session_busy` when a live process holds it.
	 * Then what the previous holder wrote is read (its readers here must get it before this
	 * Task's first message), its partials go, and confirmations a dead holder left are over.
	 */
	async claim(sessionId: string, closeStale: () => Promise<void>): Promise<void> {
		const epoch = await this.leases.claim(sessionId);
		if (epoch === undefined) {
			throw new HttpError("session_busy", `session ${sessionId} is busy: a Task runs in another server process`);
		}
		try {
			await this.tail.catchUp(sessionId);
			await closeStale();
			const floor = await raiseFloor(this.pg.pool, sessionId, epoch);
			this.floors.set(sessionId, floor);
			await this.traces.download(sessionId, floor, (after) => this.tail.rowsAfter(sessionId, after, false));
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
		await this.traces.download(sessionId, await currentFloor(this.pg.pool, sessionId), (after) =>
			this.tail.rowsAfter(sessionId, after, false),
		);
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
			if (await usageStored(this.pg.pool, row)) return;
			throw new LeaseLostError(row.sessionId);
		}
		await this.writer.drain(row.sessionId);
		if (this.writer.wasRefused(row.sessionId, epoch)) throw new LeaseLostError(row.sessionId);
		await addFencedUsage(this.pg.pool, row, epoch);
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
	async holdWorkflow(workflowId: string): Promise<boolean> {
		return (await this.leases.claim(workflowLeaseKey(workflowId))) !== undefined;
	}

	/** Does this process still hold the workflow's lease (not lost to a database outage)? */
	holdsWorkflow(workflowId: string): boolean {
		return this.leases.holds(workflowLeaseKey(workflowId));
	}

	releaseWorkflow(workflowId: string): Promise<void> {
		return this.leases.release(workflowLeaseKey(workflowId));
	}

	/** Its lease row still has this process's epoch, read `for key share` as the event log's rows are. */
	workflowFence(workflowId: string): Expression<SqlBool> {
		const key = workflowLeaseKey(workflowId);
		const epoch = this.leases.epoch(key);
		if (epoch === undefined) throw new LeaseLostError(key);
		return sql<SqlBool>`exists (select 1 from session_leases where session_id = ${key} and epoch = ${epoch} for key share)`;
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

	/** The previous processes' confirmations are theirs: a claim ends a dead one's (see `claim`). */
	async opened(): Promise<void> {}

	async madeElsewhere(sessionId: string): Promise<StoredSession | undefined> {
		return this.pg.store.getSession(sessionId);
	}

	async workflowSessionElsewhere(workflowId: string): Promise<string | undefined> {
		return (await this.pg.store.workflows.get(workflowId))?.sessionId;
	}

	watch(sessionId: string, handler: ControlHandler): void {
		this.control.watch(sessionId, handler);
	}

	async runsElsewhere(sessionId: string): Promise<boolean> {
		return !this.leases.holds(sessionId) && (await this.leases.isHeld(sessionId));
	}

	async held(): Promise<HeldWork> {
		const sessions = new Set<string>();
		const workflows = new Set<string>();
		for (const key of await this.leases.busy()) {
			if (key.startsWith(WORKFLOW_KEY)) workflows.add(key.slice(WORKFLOW_KEY.length));
			else sessions.add(key);
		}
		return { sessions, workflows };
	}

	async pendingElsewhere(sessionId: string): Promise<PendingConfirmation[]> {
		return this.control.pending(sessionId);
	}

	answerElsewhere(
		sessionId: string,
		correlationId: string,
		decision: ApprovalAnswer,
		always: boolean,
	): Promise<DecideResult> {
		return this.control.answer(sessionId, correlationId, decision, always);
	}

	workflowElsewhere(workflowId: string, action: WorkflowAction): Promise<void> {
		return this.control.workflow(workflowId, action);
	}

	watchWorkflows(handler: (workflowId: string, action: WorkflowAction) => void): void {
		this.control.watchWorkflows(handler);
	}

	everyLease(sweep: () => void): () => void {
		const timer = setInterval(sweep, this.options.leaseMs);
		timer.unref();
		return () => clearInterval(timer);
	}

	/** Steers the Session's Task if another live process runs it; false when none does. */
	async steerElsewhere(sessionId: string, text: string): Promise<boolean> {
		if (!(await this.leases.isHeld(sessionId))) return false;
		await this.control.steer(sessionId, text);
		return true;
	}

	/** A Session made here: its first Trace lines go to the database, so any process can run its first Task. */
	async created(sessionId: string): Promise<void> {
		await this.traces.upload(sessionId, undefined, 0);
	}

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
		if (emittedUpTo !== undefined) await this.logs.get(sessionId)?.readUpTo(emittedUpTo);
		await this.writer.drain(sessionId);
		if (this.writer.wasRefused(sessionId, epoch) || this.leases.epoch(sessionId) !== epoch) {
			throw new LeaseLostError(sessionId);
		}
	}

	/** Throws unless this process still holds the Session: before each model request and each tool start. */
	guard(sessionId: string): void {
		if (!this.leases.holds(sessionId)) throw new LeaseLostError(sessionId);
	}

	/** Uploads the Session's new Trace lines, one upload at a time per Session, under its lease. */
	private upload(sessionId: string): Promise<void> {
		return this.chainUpload(sessionId, async () => {
			const epoch = this.leases.epoch(sessionId);
			if (epoch === undefined || this.writer.wasRefused(sessionId, epoch)) return;
			await this.traces.upload(sessionId, epoch, this.durableSeq(sessionId)).catch(this.options.report);
		});
	}

	private durableSeq(sessionId: string): number {
		return Math.max(this.floors.get(sessionId) ?? 0, this.writer.committedSeq(sessionId));
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
		await this.leases.forget(sessionId);
	}

	/** The Session is gone (deleted here or by another process): nothing of it is kept here. */
	forget(sessionId: string): void {
		this.logs.delete(sessionId);
		this.floors.delete(sessionId);
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

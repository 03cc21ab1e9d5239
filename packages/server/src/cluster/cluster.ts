import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { ApprovalAnswer } from "@omniloop/core";
import type { Expression, SqlBool } from "kysely";
import type {
	ControlHandler,
	Coordinator,
	EngineHooks,
	HeldWork,
	RelayedEvents,
	SessionAction,
	WorkflowAction,
} from "../coordination/coordinator.js";
import type { SessionFence } from "../coordination/session-fence.js";
import { HttpError } from "../errors.js";
import type { DecideResult, PendingConfirmation } from "../host/confirmations.js";
import type { EventBus } from "../host/log/event-bus.js";
import type { PostgresStore } from "../store/postgres.js";
import type { StoredSession, UsageRow } from "../store/store.js";
import { ClusterSessionLog } from "./cluster-session-log.js";
import { BusRelay } from "./events/bus-relay.js";
import { EventLogWriter } from "./events/event-log.js";
import { EventTail } from "./events/event-tail.js";
import { Notifications } from "./events/notifications.js";
import { Leases } from "./leases/leases.js";
import { currentFloor, raiseFloor } from "./leases/seq-floor.js";
import { TaskFence } from "./leases/task-fence.js";
import { heldWork, isWorkflowKey, WorkflowLeases } from "./leases/workflow-leases.js";
import { RemoteControl } from "./remote-control.js";
import { TraceSync } from "./trace/trace-sync.js";
import { TraceUploads } from "./trace/trace-uploads.js";

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

/**
 * The Coordinator of several processes on one Postgres (docs/cluster.md), the one seam the host
 * sees, made of: the leases on Sessions (one Task per Session across all of them; leases.ts) and
 * on workflows (workflow-leases.ts), the event log it writes (event-log.ts) and the tail it reads
 * (event-tail.ts), the Trace in the database (trace-sync.ts, trace-uploads.ts), a Task's fenced
 * steps (task-fence.ts), and the controls of Tasks other processes run (remote-control.ts).
 */
export class Cluster implements Coordinator {
	readonly owner = randomUUID();
	readonly leases: Leases;
	readonly writer: EventLogWriter;
	readonly tail: EventTail;
	readonly control: RemoteControl;
	readonly importsHomeUsage = false;
	readonly engineHooks: EngineHooks = {
		shipTrace: (sessionId, emittedUpTo) => this.fence.shipTrace(sessionId, emittedUpTo),
		guard: (sessionId) => this.fence.guard(sessionId),
	};
	private readonly relay: BusRelay;
	private readonly notifications: Notifications;
	private readonly traces: TraceSync;
	private readonly uploads: TraceUploads;
	private readonly workflows: WorkflowLeases;
	private readonly fence: TaskFence;
	private readonly logs = new Map<string, ClusterSessionLog>();
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
		this.uploads = new TraceUploads(this.traces, this.leases, this.writer, options.report);
		this.workflows = new WorkflowLeases(this.leases);
		this.fence = new TaskFence(pg.pool, this.leases, this.writer, (id) => this.logs.get(id));
		this.writer.onRefused = (sessionId, epoch) => {
			if (this.leases.epoch(sessionId) !== epoch) return;
			options.report(new Error(`session ${sessionId}: its messages could not be written; its Task is aborted`));
			this.control.abortHere(sessionId);
		};
		this.tail = new EventTail(pg.pool, this.notifications, options.report);
		this.control = new RemoteControl(
			pg.pool,
			this.notifications,
			pg.store,
			(id) => this.leases.isHeld(id),
			(id) => this.leases.epoch(id),
			options.report,
		);
		// Steer and abort recorded for Tasks here whose notification was lost (remote-control.ts).
		this.leases.onRenewed = (keys) => void this.control.takeRecorded(keys.filter((key) => !isWorkflowKey(key)));
		this.relay = new BusRelay(pg.pool, this.notifications, this.owner, options.report);
		this.leases.onLost = (key) => {
			// A workflow's lease: its driver finds out at its next step (holdsWorkflow).
			if (isWorkflowKey(key)) {
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
			await this.traces.download(sessionId, floor, (after) => this.tail.rowsAfter(sessionId, after, false));
			this.uploads.begin(sessionId, floor);
			await this.writer.dropPartials(sessionId, epoch);
			await this.pg.store.interruptPendingConfirmations(Date.now(), sessionId);
		} catch (error) {
			this.uploads.end(sessionId);
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
	 * The Task here ended: its messages are committed to the event log, then the lease goes. Its
	 * partials stay a little (`partialsKeepMs`), so viewers on other processes read every seq live.
	 * The tail here goes on after what this process committed, never after a seq it only tried:
	 * once its lease was lost, another process may have written those seqs, and they are read once
	 * the Task is over here (the tail skipped the Session while it ran here; see
	 * ClusterSessionLog.endTask). A process that lost the Session drops no partials; the drop of
	 * one that held it to the end spares any of a later epoch.
	 */
	async release(sessionId: string): Promise<void> {
		try {
			await this.writer.drain(sessionId);
			const epoch = this.leases.epoch(sessionId);
			const kept = epoch !== undefined && !this.writer.wasRefused(sessionId, epoch);
			// A process that lost the Session uploads nothing more: the one that took it writes there now.
			if (kept) await this.uploads.upload(sessionId);
			this.uploads.end(sessionId);
			const upTo = this.writer.committedSeq(sessionId);
			this.tail.advance(sessionId, upTo);
			if (!kept) {
				this.logs.get(sessionId)?.lostTask();
				return;
			}
			const timer = setTimeout(() => {
				this.drops.delete(timer);
				this.writer.dropPartials(sessionId, epoch, upTo).catch(this.options.report);
			}, this.options.partialsKeepMs ?? 10_000);
			timer.unref();
			this.drops.add(timer);
		} finally {
			await this.leases.release(sessionId);
		}
	}

	/** A workflow's lease (workflow-leases.ts). */
	holdWorkflow(workflowId: string): Promise<boolean> {
		return this.workflows.hold(workflowId);
	}

	holdsWorkflow(workflowId: string): boolean {
		return this.workflows.holds(workflowId);
	}

	releaseWorkflow(workflowId: string): Promise<void> {
		return this.workflows.release(workflowId);
	}

	workflowFence(workflowId: string): Expression<SqlBool> {
		return this.workflows.fence(workflowId);
	}

	abortElsewhere(sessionId: string): Promise<boolean> {
		return this.control.abortIfHeld(sessionId);
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

	actionsFor(sessionId: string, continues: boolean): Promise<SessionAction[]> {
		return this.control.begin(sessionId, continues);
	}

	begun(sessionId: string): void {
		this.control.begun(sessionId);
	}

	async runsElsewhere(sessionId: string): Promise<boolean> {
		return !this.leases.holds(sessionId) && (await this.leases.isHeld(sessionId));
	}

	async held(): Promise<HeldWork> {
		return heldWork(await this.leases.busy());
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

	steerElsewhere(sessionId: string, text: string): Promise<boolean> {
		return this.control.steerIfHeld(sessionId, text);
	}

	sessionFence(sessionId: string): SessionFence {
		return this.fence.sessionFence(sessionId);
	}

	/** The fenced steps of a Task here (task-fence.ts). */
	addUsage(row: UsageRow): Promise<void> {
		return this.fence.addUsage(row);
	}

	/** A Session made here: its first Trace lines go to the database, so any process can run its first Task. */
	async created(sessionId: string): Promise<void> {
		await this.traces.upload(sessionId, undefined, 0);
	}

	async deleteSession(sessionId: string): Promise<void> {
		this.forget(sessionId);
		await this.traces.deleteSession(sessionId);
		await this.writer.deleteSession(sessionId);
		await this.control.deleteSession(sessionId);
		await this.leases.forget(sessionId);
	}

	/** The Session is gone (deleted here or by another process): nothing of it is kept here. */
	forget(sessionId: string): void {
		this.logs.delete(sessionId);
		this.uploads.forget(sessionId);
		this.traces.forget(sessionId);
	}

	async close(): Promise<void> {
		for (const timer of this.drops) clearTimeout(timer);
		this.uploads.close();
		await this.leases.close();
		await this.writer.close();
		await this.relay.close();
		await this.notifications.close();
	}
}

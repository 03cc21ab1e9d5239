import type { SessionSummary } from "@omniloop/client/wire";
import type { ApprovalAnswer } from "@omniloop/core";
import type { ActionGuard, TraceShipHook } from "@omniloop/core/internal";
import type { Expression, SqlBool } from "kysely";
import type { DecideResult, PendingConfirmation } from "../host/confirmations.js";
import type { EventBus } from "../host/log/event-bus.js";
import type { SessionLog } from "../host/log/session-log.js";
import type { StoredSession, UsageRow } from "../store/store.js";
import type { SessionFence } from "./session-fence.js";

/** What the process running a Session's Task does with a request made on another process. */
export interface ControlHandler {
	answered(correlationId: string, decision: ApprovalAnswer, always: boolean): void;
	abort(): void;
	steer(text: string): void;
}

/** A steer or abort posted on a process that does not run the Session's Task (recorded in cluster mode). */
export type SessionAction = { kind: "abort" } | { kind: "steer"; text: string };

/** What the process driving a workflow does with an action taken on another process. */
export type WorkflowAction = "resume" | "cancel";

/** What a process does with another's events, beyond passing them to its `GET /events` streams. */
export interface RelayedEvents {
	/** Another process deleted the Session. */
	sessionDeleted(sessionId: string): Promise<void>;
	/** Another process stored a credential's new value (the value is read from the store, never sent). */
	credentialUpdated(name: string): Promise<void>;
	/**
	 * The relay's connection was lost and is back, so events may have been missed: what the store
	 * records is caught up with (a credential stored meanwhile), and the Sessions as they are now
	 * are returned, for a fresh `sessions_snapshot` to this process's `GET /events` streams.
	 */
	missed(): Promise<SessionSummary[]>;
}

/** What live processes hold, as the database has it: Sessions whose Task runs, workflows driven. */
export interface HeldWork {
	readonly sessions: ReadonlySet<string>;
	readonly workflows: ReadonlySet<string>;
}

/** The core engine's hooks a Coordinator needs in every Session's Task (undefined: none). */
export interface EngineHooks {
	readonly shipTrace: TraceShipHook | undefined;
	readonly guard: ActionGuard | undefined;
}

/**
 * How this server process shares its Sessions and workflows with other processes on the same
 * store. The host always has one and never asks which kind (docs/architecture.md, docs/cluster.md):
 * - `LocalCoordinator`: one process alone on its store (SQLite, or Postgres alone): it is the only
 *   writer, every claim succeeds, nothing is elsewhere, no work is left behind by a live process.
 * - `Cluster`: several processes on one Postgres: a claim is a lease with a fencing epoch, writes
 *   are conditional on it, actions reach the holder or are recorded for whoever takes over.
 *
 * The contract, whatever the kind:
 * - A Task or between-Tasks work on a Session runs only between `claim` (which may answer 409
 *   `session_busy`) and `release`; `closeStale` is called, once the Session is this process's,
 *   to drop a copy loaded before (the Trace may have grown elsewhere).
 * - The `…Elsewhere` calls act on a Task another live process runs; they answer false (or
 *   undefined: "do it here") when none does, so the caller acts in this process.
 * - A workflow is driven here only between `holdWorkflow` answering true and `releaseWorkflow`;
 *   `holdsWorkflow` turns false once that is lost, and nothing of the workflow is decided here after.
 * - A driver's writes of a workflow's state carry `workflowFence`: a stale driver's are refused by
 *   the database, never merged.
 * - `addUsage` writes a usage row under the Session's claim; a refusal for a lost claim is final
 *   (`LeaseLostError`), any other is retried by the caller.
 */
export interface Coordinator {
	/** Hooks every Session's Task gets from the engine (`Agent` options). */
	readonly engineHooks: EngineHooks;
	/**
	 * True when this process is its store's only writer: the usage of Tasks the CLI ran in-process on
	 * the same home (on its Traces only) is imported at start. A cluster's rows are written under
	 * leases only.
	 */
	readonly importsHomeUsage: boolean;

	/** At start, before any Task: confirmations left pending by Tasks no process runs any more are over. */
	opened(): Promise<void>;
	/** The log that carries a Session's messages to its readers (here, and on other processes). */
	sessionLog(home: string, sessionId: string, running: () => boolean): SessionLog;
	/** The server's event bus, shared with the other processes from now on. */
	relayBus(bus: EventBus, handlers: RelayedEvents): Promise<void>;

	/** A Session made here is known to every process (its first Trace lines are shared). */
	created(sessionId: string): Promise<void>;
	/** A Session another process made and this one does not know yet: its row. */
	madeElsewhere(sessionId: string): Promise<StoredSession | undefined>;
	/** The Session of a workflow another process started, for a request about it here. */
	workflowSessionElsewhere(workflowId: string): Promise<string | undefined>;

	/** Takes the Session for a Task here, or throws 409 `session_busy` when another live process runs one. */
	claim(sessionId: string, closeStale: () => Promise<void>): Promise<void>;
	/** The Task here ended: what it wrote is shared, then the claim goes. */
	release(sessionId: string): Promise<void>;
	/** Without claiming: the copy here of the Session becomes the shared one (a takeover reads it). */
	refresh(sessionId: string, closeStale: () => Promise<void>): Promise<void>;
	/** Requests made elsewhere for the Session's Task (running here) reach `handler`. */
	watch(sessionId: string, handler: ControlHandler): void;
	/**
	 * A Task is about to start here (claimed): the steer and abort recorded for it elsewhere, taken
	 * once, to be carried out as it starts. `continues`: it goes on with the Task a dead process
	 * ran, whose recorded actions it takes; a new Task drops those (they were for a Task that ended).
	 */
	actionsFor(sessionId: string, continues: boolean): Promise<SessionAction[]>;
	/** The Task has started here: what is recorded for it from now reaches `watch`'s handler. */
	begun(sessionId: string): void;
	/**
	 * The condition of the Task's own writes of the Session beyond the event log (its
	 * confirmations, its row), taken now: it names the current claim, and still holds in a
	 * statement after `release` until another process claims the Session.
	 */
	sessionFence(sessionId: string): SessionFence;
	/** A usage row of a Task running here, under its claim. */
	addUsage(row: UsageRow): Promise<void>;

	/** Does another live process run the Session's Task? */
	runsElsewhere(sessionId: string): Promise<boolean>;
	/** Everything live processes hold now (this one included). */
	held(): Promise<HeldWork>;
	steerElsewhere(sessionId: string, text: string): Promise<boolean>;
	abortElsewhere(sessionId: string): Promise<boolean>;
	/** Before a deletion: a Task another process runs is stopped, and its process has let go. */
	stopElsewhere(sessionId: string): Promise<void>;
	/** The confirmations of a Task another process runs; undefined when none does (ask here). */
	pendingElsewhere(sessionId: string): Promise<PendingConfirmation[] | undefined>;
	/** An answer for a Task another process runs; undefined when none does (decide here). */
	answerElsewhere(
		sessionId: string,
		correlationId: string,
		decision: ApprovalAnswer,
		always: boolean,
	): Promise<DecideResult | undefined>;
	/** The Session was deleted here: its shared state goes. */
	deleteSession(sessionId: string): Promise<void>;
	/** The Session is gone (here or elsewhere): nothing of it is kept for it here. */
	forget(sessionId: string): void;

	holdWorkflow(workflowId: string): Promise<boolean>;
	holdsWorkflow(workflowId: string): boolean;
	releaseWorkflow(workflowId: string): Promise<void>;
	/**
	 * The condition a write of the workflow's state by its driver carries in its statement: true
	 * only while this process still holds the workflow (undefined alone: no condition). Throws
	 * `LeaseLostError` when this process knows it lost it already.
	 */
	workflowFence(workflowId: string): Expression<SqlBool> | undefined;
	/** Tells the process whose Task of the workflow waits to carry out `action` (already recorded in the store). */
	workflowElsewhere(workflowId: string, action: WorkflowAction): Promise<void>;
	/** Actions on workflows taken on other processes reach `handler`. */
	watchWorkflows(handler: (workflowId: string, action: WorkflowAction) => void): void;
	/**
	 * Runs `sweep` every lease period while other processes may leave work behind (alone, never):
	 * the workflows a dead process drove are taken up there. Returns what stops it.
	 */
	everyLease(sweep: () => void): () => void;

	close(): Promise<void>;
}

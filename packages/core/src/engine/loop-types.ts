import type { SessionCheckpoints } from "../checkpoints/session-checkpoints.js";
import type { SystemConfig } from "../config/system-config.js";
import type { LoopDetector } from "../context/loop-detection.js";
import type { InstructionSources, ProjectInstructions } from "../instructions/project-instructions.js";
import type { CompactionReason, DoneReason, ErrorInfo, ModelMessage, Usage } from "../messages/omni-message.js";
import type { ModelAdapter, ThinkingLevel } from "../model/model-adapter.js";
import type { AlwaysAllowed } from "../session-store/always-allowed.js";
import type { ApprovalRules } from "../tools/approval-policy.js";
import type { Deadlines } from "../tools/deadlines.js";
import type { Environment } from "../tools/environment.js";
import type { ApproveFn, TaskHooks } from "../tools/tool.js";
import type { TraceHeader } from "../trace/trace-header.js";
import type { TraceWriter } from "../trace/trace-writer.js";
import type { UnfinishedTurn } from "./continuation/unfinished-turn.js";
import type { IncrementalPairing, PairingRepair } from "./pairing.js";
import type { Emitter } from "./task/emitter.js";
import type { Interruptible } from "./task/interruptible.js";
import type { ReconnectWait } from "./task/reconnect-wait.js";
import type { SteeringQueue } from "./task/steering.js";
import type { TaskLifecycle } from "./task/task-lifecycle.js";
import type { OpenRequest } from "./turn/open-request.js";
import type { Turn } from "./turn/turn.js";

/**
 * The six states of the loop (spec: agent-loop-states). Each has one handler in states/; the
 * states that work on a turn carry it.
 */
export type LoopState =
	| { kind: "thinking" }
	| { kind: "streaming"; turn: Turn }
	| { kind: "confirming"; turn: Turn }
	| { kind: "executing"; turn: Turn }
	| { kind: "compacting"; reason: CompactionReason }
	| { kind: "done"; reason: DoneReason; error?: ErrorInfo };

/** Called with the repairs `ensurePairing` had to make before a request; any call means a bug upstream. */
export type PairingRepairHook = (repairs: readonly PairingRepair[], sessionId: string) => void;

/**
 * A host that keeps a copy of the Trace elsewhere (the Runtime Server on Postgres) copies what the
 * Session's Trace file gained. Called after the flush ahead of tools starting and of a person
 * being asked; those wait for it, so another process that takes the Session over sees every call
 * that may have run and every question asked. A rejection ends the Task with its error. The
 * engine sets no time limit: a hook that can stall should bound itself (an abort still ends the
 * Task at once; the calls that waited never start). Top-level Sessions only: a subagent's Trace
 * lives inside its parent's folder, and the parent's own write-ahead covers the call that runs it.
 * `emittedUpTo`, in a Task: the last seq it has put in its stream. The host reads the stream on its
 * own schedule, so a host that copies what it read (not the file) waits until it has read that far.
 */
export type TraceShipHook = (sessionId: string, emittedUpTo?: number) => Promise<void>;

/**
 * A host whose right to run a Session can end (the Runtime Server's lease on Postgres) is asked
 * right before each model request and each tool start; it throws to forbid it, and the Task ends
 * with that error. Synchronous, so nothing runs between the answer and the act. Top-level
 * Sessions only (a subagent runs inside its parent's Task, which the host aborts).
 */
export type ActionGuard = (sessionId: string) => void;

/** Compaction bookkeeping that outlives Tasks. */
export interface CompactionState {
	turnsSince: number;
	/** No automatic compaction before the Session reaches this turn count: set to the next turn after a failure. */
	blockedUntilTurn: number;
	/** True from a successful compaction until the next request: nothing new to compact. */
	justCompacted: boolean;
}

/** What outlives a Task: the Session's model context, counters and Trace. */
export interface SessionState {
	readonly sessionId: string;
	readonly agentId: string;
	readonly workspaceDir: string;
	readonly model: ModelAdapter;
	/** What every request sends as its system prompt: the agent's own, then the project instructions. */
	system: string | undefined;
	/** The agent's own system prompt, without the project instructions. */
	readonly baseSystem: string | undefined;
	/** The project instructions in `system`, fixed until a reload (docs/project-instructions.md). */
	instructions: ProjectInstructions;
	/** Where a reload reads them. */
	readonly instructionSources: InstructionSources;
	/** The workspace's checkpoints; undefined when turned off (or for a subagent). See docs/checkpoints.md. */
	readonly checkpoints: SessionCheckpoints | undefined;
	/** Where its tools run: the toolset (fixed for the Session), the workspace, the time limit. */
	readonly environment: Environment;
	/** The time limits of its model requests (one at a time), on one timer (`requestTimer`). */
	readonly requestTimer: Deadlines;
	readonly approval: ApprovalRules;
	/** The tools a person allowed for the rest of the Session (a subagent's are its top-level Session's). */
	readonly alwaysAllowed: AlwaysAllowed;
	readonly config: SystemConfig;
	/** Credential values no emitted or written message may hold (AgentOptions.secrets); read per Task. */
	readonly secrets: () => readonly string[];
	/** The current Trace file; replaced when compaction rotates it. */
	trace: TraceWriter;
	/** The current file's header, the template for the next one. */
	traceHeader: TraceHeader;
	/** The Session's folder, where its Trace files live. */
	readonly traceDir: string;
	readonly onPairingRepair: PairingRepairHook | undefined;
	readonly shipTrace: TraceShipHook | undefined;
	readonly guard: ActionGuard | undefined;
	/** The pairing check before each request, which remembers what it already checked. */
	readonly pairing: IncrementalPairing;
	/** How deep this Session is nested: 0 for a top-level Session, 1 for a subagent's, … */
	readonly depth: number;
	/** The model context: what the next request sends, less the input being assembled. */
	context: ModelMessage[];
	/**
	 * What the next Task sends before its prompt: built when a Task ends early (interruption, an
	 * error), plus steering it could not deliver. Never written to the Trace by the engine.
	 */
	carryOver: ModelMessage[];
	/**
	 * The last turn of a Task a crash or restart cut off, from the Trace; `continueTask` carries
	 * it on, anything else (run, compact) drops it and sends the carry-over instead.
	 */
	unfinished: UnfinishedTurn | undefined;
	/** Every tool call id the Session has seen, so a model that repeats one cannot run a tool twice. */
	readonly callIds: Set<string>;
	/** The seq of the last message emitted. */
	seq: number;
	/** Every seq up to this is durably reserved in the Trace (see SeqReservation); `nextSeq` reserves more. */
	seqReserved: number;
	usage: Usage;
	/** Model requests made by the Session, across Tasks (reconnects not counted). */
	turnCount: number;
	/** The last ok request's `token_usage.request.total`: the `context` compaction trigger. */
	lastRequestTotal: number;
	/** Compaction's own counters: turns since the last one, and when an automatic one may run again. */
	readonly compaction: CompactionState;
}

/**
 * The run's shared mutable context: every state handler reads and writes this, and nothing else.
 */
export interface LoopContext {
	readonly session: SessionState;
	readonly approve: ApproveFn | undefined;
	/** What tools that run agents of their own get from this Task. */
	readonly taskHooks: TaskHooks;
	readonly thinkingLevel: ThinkingLevel | undefined;
	/** Announce all of a turn's calls that need a person at once (RunOptions.askAhead). */
	readonly askAhead: boolean;
	/** Fires when the Task is aborted (the host's signal, the consumer stopped reading) or fails. */
	readonly interrupt: Interruptible;
	readonly steering: SteeringQueue;
	readonly reconnectWait: ReconnectWait;
	/** This run's new messages; sent with the first request. */
	readonly prompt: readonly ModelMessage[];
	/** The latest turn of this Task. */
	turn: Turn | undefined;
	turnsThisTask: number;
	readonly taskUsage: Usage;
	/** The request whose request_end is still owed (a turn's attempt or a compaction's). */
	openRequest: OpenRequest | undefined;
	/** A compaction_begin whose compaction_end is still owed: the Task's end settles it as failed. */
	compactionOpen: boolean;
	/** Repeated-call detection for this Task; undefined when turned off. */
	readonly loopDetector: LoopDetector | undefined;
	/** The provider's context-overflow error while the compaction it asked for runs. */
	overflow: ErrorInfo | undefined;
	/** An overflow was already answered by a compaction and a retry: the next one is final. */
	overflowRetried: boolean;
	/** Set by `fail`: the Task ends with this error rather than as an abort. */
	failure: ErrorInfo | undefined;
	/** Where the Task's messages leave the engine: the one place a message gets its seq. */
	readonly out: Emitter;
	/** running → ending → ended: `lifecycle.finish` is the one way the Task ends. */
	readonly lifecycle: TaskLifecycle;
	/** Ends the Task with an error from outside the handlers (a tool pipeline that broke). */
	fail(error: unknown): void;
}

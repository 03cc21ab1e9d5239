import type { Checkpoint } from "../../checkpoints/checkpoint-meta.js";
import type { FileChange, RestoreOptions } from "../../checkpoints/session-checkpoints.js";
import { makeMessage, userText } from "../../messages/constructors.js";
import { writeMarker } from "../../messages/markers.js";
import type {
	InstructionFileInfo,
	InstructionsLoaded,
	ModelMessage,
	OmniMessage,
} from "../../messages/omni-message.js";
import { redactor, valueRedactor } from "../../messages/redaction.js";
import type { ThinkingLevel } from "../../model/model-adapter.js";
import { TimedModel } from "../../model/timeouts.js";
import type { SandboxState } from "../../tools/sandbox/sandbox-mode.js";
import type { ApproveFn } from "../../tools/tool.js";
import { closeOpenCompaction, runCompaction } from "../compaction/compaction.js";
import { carryTaskSoFar, continueTurn } from "../continuation/continue-turn.js";
import { type PendingConfirmation, pendingConfirmations } from "../continuation/unfinished-turn.js";
import type { LeftOutFile } from "../history/fork.js";
import { runLoop } from "../loop.js";
import type { LoopContext, LoopState, SessionState } from "../loop-types.js";
import { ReconnectWait } from "../task/reconnect-wait.js";
import { checkRunInput } from "../task/run-input.js";
import { RunStream } from "../task/run-stream.js";
import { SteeringQueue } from "../task/steering.js";
import { type ActiveTask, createTaskContext } from "../task/task-context.js";
import { closeOpenRequest } from "../turn/request.js";
import { RunInputError, SessionBusyError } from "./errors.js";
import { recordEvent } from "./session-events.js";
import {
	checkpointsOf,
	type RestoreDone,
	type RewindDone,
	type RewindOptions,
	reloadInstructions,
	restoreFiles,
	rewindSession,
	undoFiles,
} from "./session-files.js";
import { generateTitle } from "./side-channels.js";

/** How `session.run` and `session.continueTask` run a Task: its abort signal, approvals and thinking level. */
export interface RunOptions {
	/** Interrupts the Task (Ctrl-C): `abort`, then `done{user_abort}`; the next run gets the carry-over. */
	signal?: AbortSignal;
	/** Asked about each call the approval policy says to ask about. Omitted: those calls are denied. */
	approve?: ApproveFn;
	/** This run's thinking level, carried through reconnects (compaction requests keep the default). */
	thinkingLevel?: ThinkingLevel;
	/**
	 * Announce every call of a turn that needs a person as soon as the model's output completes
	 * (one `confirmation_required` each, in call order), so a person can decide them all at once —
	 * for hosts where a person answers later (durable workflows). `approve` is still asked one call
	 * at a time, in call order. Default: each call is announced just before it is asked about.
	 */
	askAhead?: boolean;
}

/** Whether `session.compact()` can run now, and if not why not. */
export type Compactability = "ok" | "unsupported" | "empty" | "just_compacted";

/** A Task a crash or restart cut off (see `Session.unfinishedTask`). */
export interface UnfinishedTask {
	/** Where it was cut off: running its tools (or waiting on approvals), or while the model responded. */
	stage: "tools" | "model";
	/** The calls that waited on a person, in call order: `continueTask` asks about them again under the same ids. */
	pendingConfirmations: PendingConfirmation[];
}

/** What a continued Task tells the model when the restart cut its response off. */
const CUT_OFF_NOTE =
	"The session was restarted while you were responding, and your response was cut off. Tool calls you had made are answered above. Continue the task.";

/** What a Session holds besides its state: its tools' resources (MCP servers). */
export interface SessionResources {
	/** MCP servers that did not start; their tools are missing, the rest work. */
	readonly loadErrors: readonly { server: string; message: string }[];
	close(): Promise<void>;
}

/** Why a compaction did not run, as a person reads it. */
const NOT_COMPACTED = {
	unsupported: "the model cannot compact (it writes no summaries)",
	empty: "nothing to compact: the Session is empty",
	just_compacted: "nothing to compact: the Session was just compacted",
} as const;

/**
 * A Session: one model context, one Trace, one Task (or one compaction) at a time
 * (docs/architecture.md, glossary).
 *
 * `run` drives one Task to its end and streams every OmniMessage; `steer` queues user input for
 * the running Task; `compact` compacts now; `generateTitle` is an out-of-band call.
 */
export class Session {
	private task: ActiveTask | undefined;

	constructor(
		private readonly state: SessionState,
		private readonly resources: SessionResources = { loadErrors: [], close: async () => {} },
		/** A fork into a new folder: the parent's files not written there, and why (docs/checkpoints.md). */
		readonly leftOut: readonly LeftOutFile[] = [],
	) {}

	/**
	 * Tool sources that failed as the Session loaded (an MCP server that did not start). Its message
	 * may quote the server's own output, which may hold the key it was given: redacted.
	 */
	get loadErrors(): readonly { server: string; message: string }[] {
		return valueRedactor(this.state.secrets())(this.resources.loadErrors);
	}

	/** Whether the shell's commands run in the sandbox the agent is configured for (docs/sandbox.md). */
	get sandbox(): SandboxState {
		return this.state.environment.sandbox.state;
	}

	/** The names of the tools the model can call. */
	get toolNames(): readonly string[] {
		return this.state.environment.tools.names;
	}

	get id(): string {
		return this.state.sessionId;
	}

	get workspaceDir(): string {
		return this.state.workspaceDir;
	}

	/** True while a Task or a compaction runs. */
	get busy(): boolean {
		return this.task !== undefined;
	}

	/** A copy of the model context as the next request would start from it. */
	get context(): readonly ModelMessage[] {
		return [...this.state.context];
	}

	/**
	 * Runs one Task: `input` (the prompt) goes to the model after any carry-over, and the returned
	 * generator streams every message until exactly one `done`.
	 *
	 * Throws SessionBusyError at once if a Task is already running (that Task is unharmed), and
	 * RunInputError if `input` is not a list of model messages.
	 */
	run(input: readonly ModelMessage[], options: RunOptions = {}): AsyncGenerator<OmniMessage, void, undefined> {
		const prompt = checkRunInput(input, this.state.carryOver.length > 0);
		// A Task a crash cut off is not continued: its outputs (or placeholders) go first, as carry-over.
		const task = this.claim();
		return this.runTask(task, prompt, options, () => ({ kind: "thinking" }));
	}

	/**
	 * The Task a crash or restart cut off, as the Trace shows it (a resumed Session only), with the
	 * approvals it was waiting on; undefined when the last Task ended. `run` and `compact` give
	 * it up; `continueTask` carries it on.
	 */
	get unfinishedTask(): UnfinishedTask | undefined {
		const unfinished = this.state.unfinished;
		if (unfinished === undefined) return undefined;
		return {
			stage: unfinished.kind === "batch" ? "tools" : "model",
			pendingConfirmations: pendingConfirmations(unfinished),
		};
	}

	/**
	 * Continues the Task a crash or restart cut off, and streams it to its `done` like `run`.
	 * Cut off after the model's output completed, it goes on where it stopped: finished outputs
	 * stay, calls that had started get an `interrupted` output and never run again, decided calls
	 * are carried out, and calls that waited on a person are asked again with the same correlation
	 * ids — the model sees the history it would have seen had nothing happened. Cut off while the
	 * model was responding, the turn is made again (after a note that it was cut off).
	 *
	 * Throws RunInputError when there is no unfinished Task, SessionBusyError while one runs.
	 */
	continueTask(options: RunOptions = {}): AsyncGenerator<OmniMessage, void, undefined> {
		const unfinished = this.state.unfinished;
		if (unfinished === undefined) {
			throw new RunInputError(`continueTask(): Session ${this.id} has no unfinished Task (its last Task ended)`);
		}
		const task = this.claim();
		if (unfinished.kind === "stream") {
			return this.runTask(task, [userText(writeMarker("turn_aborted", CUT_OFF_NOTE))], options, (ctx) => {
				carryTaskSoFar(ctx, unfinished);
				return { kind: "thinking" };
			});
		}
		// The carry-over (finished outputs, placeholders) stays until the turn is rebuilt: a Task
		// aborted before that leaves it for the next run.
		return this.runTask(task, [], options, (ctx) => continueTurn(ctx, unfinished));
	}

	/** A Task's loop on a fresh Task context, entered at the state `start` gives (thinking, or a continued turn). */
	private runTask(
		task: ActiveTask,
		prompt: readonly ModelMessage[],
		options: RunOptions,
		start: (ctx: LoopContext) => LoopState,
	): AsyncGenerator<OmniMessage, void, undefined> {
		// Open from the call on, as `busy` is: a host that steers before its first read is not told
		// "no Task runs" while a second run would be refused as busy. The first turn delivers it.
		task.steering.start();
		return this.stream(task, options.signal, prompt, options, (ctx) => runLoop(ctx, start(ctx)));
	}

	/**
	 * Compacts now (reason "manual") and streams its events: compaction_begin, the request's
	 * events, compaction_end, and the fresh context's first message. No `done`: it is not a Task.
	 */
	compact(options: { signal?: AbortSignal } = {}): AsyncGenerator<OmniMessage, void, undefined> {
		const task = this.claim();
		return this.stream(task, options.signal, [], {}, (ctx) => this.compactNow(ctx));
	}

	/** Whether `compact()` can do anything useful now. */
	compactability(): Compactability {
		if (this.state.model.supportsCompaction === false) return "unsupported";
		if (this.state.context.length === 0) return "empty";
		if (this.state.compaction.justCompacted) return "just_compacted";
		return "ok";
	}

	/**
	 * A short title for the conversation, from one out-of-band model call; never in the history or
	 * the Trace. Its credential values are redacted, as in every message the Session emits.
	 */
	generateTitle(options: { signal?: AbortSignal } = {}): Promise<string> {
		// Every wait of a request has its time limit, the title's too (a stalled provider must not
		// hold the caller, a server route among them, forever).
		const model = new TimedModel(this.state.model, this.state.config.timeouts);
		// The model writes it from its context, which holds what was typed as it was typed (a key
		// pasted into a message): hosts show and save the title, so it leaves like a message does.
		const redact = valueRedactor(this.state.secrets());
		return generateTitle(model, this.state.context, options.signal ?? new AbortController().signal, redact);
	}

	/**
	 * Queues `text` for the running Task; it reaches the model as `[user_steering]` at the next
	 * input assembly. Returns false when no Task is running (submit a new Task instead).
	 */
	steer(text: string): boolean {
		if (typeof text !== "string" || text.trim() === "")
			throw new RunInputError("steer(text): text must be a non-empty string");
		return this.task?.steering.offer(text) ?? false;
	}

	/**
	 * Ends the current reconnect wait now (the Web App's "retry now"); the attempt counter is
	 * unchanged. Does nothing when no wait is running. True when a wait was cut short.
	 */
	skipReconnectWait(): boolean {
		return this.task?.reconnectWait.skip() ?? false;
	}

	/** The AGENTS.md files in the system prompt (read when the Session was made, or at the last reload). */
	get instructions(): readonly InstructionFileInfo[] {
		return this.state.instructions.files;
	}

	/** Where the Session came from, when it is a fork: the Session and the seq of the message it was forked before. */
	get parent(): { sessionId: string; seq: number } | undefined {
		return this.state.traceHeader.parent;
	}

	/**
	 * Reads the project instructions again (the person asked to): the next request's system prompt
	 * carries them. Resolves with the `instructions_loaded` event, recorded in the Trace. Throws
	 * SessionBusyError while a Task runs (a Task's requests keep the bytes they began with).
	 */
	reloadInstructions(): Promise<InstructionsLoaded> {
		return this.exclusive(() => reloadInstructions(this.state));
	}

	/** The workspace's checkpoints, oldest first (see docs/checkpoints.md); none when they are turned off. */
	checkpoints(): Promise<Checkpoint[]> {
		return this.state.checkpoints?.list() ?? Promise.resolve([]);
	}

	/**
	 * What restoring checkpoint `id` would change, file by file, with diffs; a conflict is marked
	 * `conflict`. Credential values in the diffs are redacted, as in everything the Session emits.
	 */
	async checkpointDiff(id: string): Promise<FileChange[]> {
		return this.redactFiles(await checkpointsOf(this.state).preview(id));
	}

	/** The checkpoint `undo` would restore (to preview it first); undefined when no turn is left to undo. */
	undoTarget(): Promise<Checkpoint | undefined> {
		return checkpointsOf(this.state).undoTarget();
	}

	/** Every file the agent changed across the Session, with its diff from before its first change to now (redacted). */
	async filesChanged(): Promise<FileChange[]> {
		return this.redactFiles((await this.state.checkpoints?.filesChanged()) ?? []);
	}

	/** A file changed by the agent may hold a key (a `.env` it wrote): its diff leaves like a message does. */
	private redactFiles(files: FileChange[]): FileChange[] {
		return valueRedactor(this.state.secrets())(files);
	}

	/**
	 * Restores the workspace's files to checkpoint `id`, after checkpointing them as they are (so
	 * the restore can be undone). A file changed outside the agent since is kept and reported as a
	 * conflict, unless `overwrite`. Throws SessionBusyError while a Task runs.
	 */
	restore(id: string, options: RestoreOptions = {}): Promise<RestoreDone> {
		return this.exclusive(() => restoreFiles(this.state, id, options));
	}

	/** Undoes the last turn's changes to the files (again: the turn before); a restore, so it can be undone too. */
	undo(options: RestoreOptions = {}): Promise<RestoreDone> {
		return this.exclusive(() => undoFiles(this.state, options));
	}

	/**
	 * Takes the conversation back to before the person's message `seq`, and with `files` the
	 * workspace too. A recorded event: the Trace stays append-only, and a resume or a replay
	 * rebuilds the context from it. Throws RunInputError when `seq` is not a person's message in
	 * the context, SessionBusyError while a Task runs.
	 */
	rewind(seq: number, options: RewindOptions = {}): Promise<RewindDone> {
		return this.exclusive(() => rewindSession(this.state, seq, options));
	}

	/** Runs `work` with the Session claimed as by a Task: no Task starts meanwhile, and none may be running. */
	private async exclusive<T>(work: () => Promise<T>): Promise<T> {
		if (this.task !== undefined) throw new SessionBusyError(this.id);
		const task: ActiveTask = { steering: new SteeringQueue(), reconnectWait: new ReconnectWait() };
		this.task = task;
		try {
			return await work();
		} finally {
			this.release(task);
		}
	}

	/** Closes the Session's Trace file and stops its MCP servers. The Session can no longer run. */
	async close(): Promise<void> {
		// Closed between Tasks, the Session hands out no more numbers: a resume goes on from the last one.
		if (this.task === undefined) this.state.trace.reserveSeq(this.state.seq);
		this.state.trace.close();
		// A seal or checkpoint still writing into the shadow store finishes before close resolves.
		await this.state.checkpoints?.idle();
		await this.resources.close();
	}

	/** The Session's one Task (or compaction) begins; an unfinished Task from before is not continued after it. */
	private claim(): ActiveTask {
		if (this.task !== undefined) throw new SessionBusyError(this.id);
		this.state.unfinished = undefined;
		const task: ActiveTask = { steering: new SteeringQueue(), reconnectWait: new ReconnectWait() };
		this.task = task;
		return task;
	}

	private release(task: ActiveTask): void {
		if (this.task === task) this.task = undefined;
	}

	/** Runs `work` on a fresh Task context, from the first read, and streams what it emits until it is over. */
	private stream(
		task: ActiveTask,
		signal: AbortSignal | undefined,
		prompt: readonly ModelMessage[],
		options: RunOptions,
		work: (ctx: LoopContext) => Promise<void>,
	): AsyncGenerator<OmniMessage, void, undefined> {
		return new RunStream<OmniMessage>(
			(channel) => {
				const controller = new AbortController();
				const ctx = createTaskContext({
					state: this.state,
					task,
					prompt,
					options,
					controller,
					channel,
					release: () => this.release(task),
				});
				// Linked after the context exists, so an already-fired signal ends the Task like any other.
				const onHostAbort = () => controller.abort(signal?.reason);
				if (signal?.aborted) onHostAbort();
				else signal?.addEventListener("abort", onHostAbort, { once: true });
				return {
					// The work's own promise is watched for failures; the stream ends when the Task does.
					running: (() => {
						work(ctx).catch((error: unknown) => ctx.fail(error));
						return ctx.lifecycle.ended;
					})(),
					// The reader went away before the end: that ends the work like an abort.
					stop: () => {
						if (!controller.signal.aborted) controller.abort(new Error("the run's reader stopped reading"));
					},
					cleanup: () => {
						signal?.removeEventListener("abort", onHostAbort);
						this.release(task);
					},
				};
			},
			() => {
				this.keepUnreadSteering(task);
				this.release(task);
			},
		);
	}

	/**
	 * A run returned before its first read never ran: steering it accepted is recorded (redacted,
	 * as a Task's end records what it could not deliver) and goes to the next Task.
	 */
	private keepUnreadSteering(task: ActiveTask): void {
		const kept = task.steering.close();
		if (kept.length === 0) return;
		const redact = redactor(this.state.secrets());
		for (const steering of kept) steering.seq = recordEvent(this.state, redact(steering)).seq;
		this.state.carryOver.push(...kept);
	}

	private async compactNow(ctx: LoopContext): Promise<void> {
		// However the compaction ends — done, aborted, failed — the output ends and the Session is freed.
		const finish = () =>
			ctx.lifecycle.finish(() => {
				closeOpenRequest(ctx);
				closeOpenCompaction(ctx, ctx.failure);
				this.state.trace.flush();
			});
		ctx.lifecycle.onInterrupted = finish;
		if (ctx.interrupt.signal.aborted) return finish();
		const feasibility = this.compactability();
		if (feasibility === "ok") await runCompaction(ctx, "manual");
		else {
			ctx.out.emit(makeMessage("compaction_begin", { reason: "manual", mode: this.state.config.compaction.mode }));
			ctx.out.emit(
				makeMessage("compaction_end", {
					status: "failed",
					error: { kind: feasibility, message: NOT_COMPACTED[feasibility] },
				}),
			);
		}
		await finish();
	}
}

import type { SessionStatus } from "@omniloop/client/wire";
import type {
	ApprovalAnswer,
	ApproveFn,
	InstructionFileInfo,
	ModelMessage,
	OmniMessage,
	Session,
	ThinkingLevel,
	TraceHeader,
} from "@omniloop/core";
import { HostStop, TraceFormatError } from "@omniloop/core";
import { AlwaysAllowed, checkTitle } from "@omniloop/core/internal";
import type { SessionAction } from "../coordination/coordinator.js";
import { type SessionFence, UNFENCED } from "../coordination/session-fence.js";
import { HttpError } from "../errors.js";
import type { StoredSession } from "../store/store.js";
import { ConfirmationAnswers, type DecideResult, type PendingConfirmation } from "./confirmations.js";
import type { HostContext } from "./host-context.js";
import type { SessionListener, SessionLog } from "./log/session-log.js";
import { recordMessage, usageRowOf } from "./side-effects.js";
import { reportStoreFailure } from "./store-failures.js";

export type { SessionStatus };
export type SessionLock = { reason: "auth"; credential: string } | null;

interface RunningWork {
	controller: AbortController;
	finished: Promise<void>;
	/** Listeners that follow only this Task (a `POST …/messages` stream). */
	followers: Set<SessionListener>;
	/**
	 * True when closing the server should leave the Task unfinished, for the next process to
	 * continue (a workflow's Task, running or waiting on a person).
	 */
	keepOnClose: () => boolean;
	/** Set when the server's shutdown left the Task unfinished: what it emits after is neither published nor recorded. */
	leftUnfinished: boolean;
}

/** Work a host drives itself: the core stream it starts on the loaded Session. */
export type StartWork = (session: Session, signal: AbortSignal) => AsyncGenerator<OmniMessage, void, undefined>;

/**
 * One Session as the server hosts it: the core Session (loaded on first use, and again after a
 * credential changed), its running Task, its confirmations, its recent messages and its readers.
 * Everything the engine does stays in the engine: this maps calls and records what it emits.
 */
export class HostedSession {
	private session: Session | undefined;
	private parentRead: { parent: { sessionId: string; seq: number } | undefined } | undefined;
	private headerDamageReported = false;
	private loading: Promise<Session> | undefined;
	private work: RunningWork | undefined;
	readonly log: SessionLog;
	readonly confirmations: ConfirmationAnswers;
	/**
	 * Where a person's "always" is kept (beside the Session's Trace, as the CLI keeps it): the
	 * engine reads it before announcing a call, so a granted tool's later calls never reach `approve`.
	 */
	private readonly alwaysAllowed: AlwaysAllowed;
	private reloadBeforeNextTask = false;

	constructor(
		public row: StoredSession,
		readonly host: HostContext,
		session?: Session,
	) {
		this.session = session;
		this.confirmations = new ConfirmationAnswers(
			row.id,
			host.store,
			() => this.statusChanged(),
			() => host.coordinator.sessionFence(row.id),
		);
		this.alwaysAllowed = new AlwaysAllowed(host.home, row.id);
		this.log = host.coordinator.sessionLog(host.home, row.id, () => this.running);
		this.log.damage.found = ({ file, line, problem }) =>
			host.report(
				new Error(`session ${row.id}: ${file} line ${line} is damaged (${problem}): left out of its history`),
			);
		host.coordinator.watch(row.id, {
			answered: (correlationId, decision, always) => {
				const asked = this.confirmations.pending().find((c) => c.correlationId === correlationId);
				if (always && decision === "allow" && asked !== undefined) this.alwaysAllowed.add(asked.name);
				this.confirmations.settle(correlationId, decision);
			},
			abort: () => this.abort(),
			steer: (text) => this.steerHere(text),
		});
	}

	get id(): string {
		return this.row.id;
	}

	get status(): SessionStatus {
		if (this.work === undefined) return "idle";
		return this.confirmations.waiting ? "waiting_approval" : "busy";
	}

	get lock(): SessionLock {
		return this.row.lockCredential === null ? null : { reason: "auth", credential: this.row.lockCredential };
	}

	get running(): boolean {
		return this.work !== undefined;
	}

	/** The confirmations its Task waits on, here or in the process that runs it. */
	async pendingConfirmations(): Promise<PendingConfirmation[]> {
		const elsewhere = this.running ? undefined : await this.host.coordinator.pendingElsewhere(this.id);
		return elsewhere ?? this.confirmations.pending();
	}

	/**
	 * Starts a Task; its messages go to every reader and to `follower`, which learns when it ends.
	 * A Session with no title yet is called by its first prompt (as `SessionStore.list` calls one made
	 * by the CLI) until a title is generated.
	 */
	async startTask(input: ModelMessage[], thinkingLevel: ThinkingLevel | undefined, follower?: SessionListener) {
		await this.begin(
			(session, signal) =>
				session.run(input, {
					signal,
					approve: this.approve,
					...(thinkingLevel === undefined ? {} : { thinkingLevel }),
				}),
			follower,
		);
	}

	/**
	 * Starts work the host drives (a workflow's Task: its own `approve`, `continueTask`), published
	 * like any Task (and to `follower`, as a reader of this Task). Resolves once it started, with a
	 * promise that settles when it has ended.
	 */
	async startWork(
		start: StartWork,
		keepOnClose: () => boolean,
		follower?: SessionListener,
	): Promise<{ finished: Promise<void> }> {
		await this.begin(start, follower, keepOnClose, true);
		return { finished: (this.work as RunningWork).finished };
	}

	/**
	 * Before taking up what another process left: the Trace here becomes the shared one (nothing
	 * runs here, so a copy loaded before is let go).
	 */
	async refresh(): Promise<void> {
		if (this.work !== undefined) return;
		await this.host.coordinator.refresh(this.id, this.closeStale);
	}

	/** The Task a crash or restart cut off, from the Trace (see `Session.unfinishedTask`). */
	async unfinishedTask(): Promise<Session["unfinishedTask"]> {
		return (await this.load()).unfinishedTask;
	}

	async startCompaction(follower?: SessionListener): Promise<void> {
		await this.begin((session, signal) => session.compact({ signal }), follower);
	}

	/** Steers its Task, here or in the process that runs it (accepted: a live process runs it). */
	async steer(text: string): Promise<boolean> {
		if (this.running) return this.steerHere(text);
		return this.host.coordinator.steerElsewhere(this.id, text);
	}

	/** Aborts its Task, here or in the process that runs it. */
	async abortAnywhere(): Promise<boolean> {
		if (this.abort()) return true;
		if (this.running) return false;
		return this.host.coordinator.abortElsewhere(this.id);
	}

	/** Aborts the Task running in this process. */
	abort(reason: Error = new Error("aborted through the API")): boolean {
		if (this.work === undefined || this.work.controller.signal.aborted) return false;
		this.work.controller.abort(reason);
		return true;
	}

	private steerHere(text: string): boolean {
		return this.work !== undefined && (this.session?.steer(text) ?? false);
	}

	skipReconnectWait(): boolean {
		return this.work !== undefined && (this.session?.skipReconnectWait() ?? false);
	}

	async compactability(): Promise<ReturnType<Session["compactability"]>> {
		return (await this.load()).compactability();
	}

	async generateTitle(): Promise<string> {
		const title = await (await this.load()).generateTitle();
		this.host.sessions.saveTitle(this.id, title);
		await this.update({ title });
		return title;
	}

	/** A person's title (checked by core's checkTitle), kept beside the Trace and in the index; other tabs refetch the list. */
	async rename(title: string): Promise<void> {
		const saved = checkTitle(title);
		this.host.sessions.saveTitle(this.id, saved);
		await this.update({ title: saved });
		this.statusChanged();
	}

	/** A fork's parent, from its Trace header (written once, when the fork was made). */
	parent(): { sessionId: string; seq: number } | undefined {
		if (this.parentRead === undefined) this.parentRead = { parent: this.header()?.parent };
		return this.parentRead.parent;
	}

	/**
	 * The newest Trace file's header, for what the lists and the credentials read of it. A header
	 * that cannot be read is reported and read as none: one damaged Session must not break the
	 * list or a credential's update for the others (its own routes say `trace_damaged`).
	 */
	private header(): TraceHeader | undefined {
		try {
			return this.host.sessions.latestHeader(this.id);
		} catch (error) {
			if (!(error instanceof TraceFormatError)) throw error;
			// Once: every list and every credential update asks again.
			if (!this.headerDamageReported) this.host.report(new Error(`session ${this.id}: ${error.message}`));
			this.headerDamageReported = true;
			return undefined;
		}
	}

	/** The core Session, for what only reads it (its checkpoints, the files it changed). */
	loaded(): Promise<Session> {
		return this.load();
	}

	/**
	 * The AGENTS.md files in the Session's system prompt; a Session that cannot be loaded now (its
	 * agent is gone from omniloop.yaml) still shows what its Trace header recorded.
	 */
	async instructions(): Promise<readonly InstructionFileInfo[]> {
		try {
			return (await this.load()).instructions;
		} catch {
			return this.header()?.instructions?.files ?? [];
		}
	}

	/**
	 * Work on the Session between Tasks (a restore, a rewind, a reload of its instructions): 409
	 * while a Task runs, and no Task starts meanwhile. The events it recorded reach every reader,
	 * as a Task's messages do.
	 */
	async between<T>(
		work: (session: Session) => Promise<T> | T,
		events: (result: T) => readonly OmniMessage[],
	): Promise<T> {
		const { release } = this.takeWork(new Set(), () => false);
		let claimed = false;
		try {
			await this.host.coordinator.claim(this.id, this.closeStale);
			claimed = true;
			const result = await work(await this.load());
			for (const message of events(result)) this.publish(message, new Set());
			return result;
		} finally {
			if (claimed) await this.host.coordinator.release(this.id).catch((e: unknown) => this.host.report(e));
			this.work = undefined;
			release();
		}
	}

	async answer(correlationId: string, decision: ApprovalAnswer, always: boolean): Promise<DecideResult> {
		// The Task waiting for it may run in another process: the store carries the answer there.
		const elsewhere = this.running
			? undefined
			: await this.host.coordinator.answerElsewhere(this.id, correlationId, decision, always);
		if (elsewhere !== undefined) return elsewhere;
		const asked = this.confirmations.pending().find((c) => c.correlationId === correlationId);
		const result = await this.confirmations.decide(correlationId, decision);
		// "always" allows that tool for the rest of the Session: later calls are not asked about.
		if (result.kind === "decided" && always && decision === "allow" && asked !== undefined) {
			this.alwaysAllowed.add(asked.name);
		}
		return result;
	}

	/** Stops `listener` (a stream that closed) — the Task it followed goes on. */
	unsubscribe(listener: SessionListener): void {
		this.log.unsubscribe(listener);
		this.work?.followers.delete(listener);
	}

	/** The next Task loads the Session again (a credential it uses changed). */
	reloadOnNextTask(): void {
		this.reloadBeforeNextTask = true;
	}

	/** `fence`: set by the Task's own stream (an `auth` refusal, an ok request), under its claim. */
	async setLock(credential: string | null, fence: SessionFence = UNFENCED): Promise<void> {
		if (this.row.lockCredential === credential || fence.lost) return;
		await this.update({ lockCredential: credential }, fence);
		this.statusChanged();
	}

	/** The credential this Session's model sends, from its Trace header's model name. */
	credential(): string | undefined {
		return this.host.credentials.credentialOf(this.header()?.modelRef);
	}

	/** Whether this Session's model reads credential `name` anywhere (apiKey, baseURL, headers). */
	usesCredential(name: string): boolean {
		return this.host.credentials.credentialsOf(this.header()?.modelRef).includes(name);
	}

	/**
	 * Aborts a running Task and waits for it to end (its Trace flushed), then closes the Session.
	 * A Task to keep (`keepOnClose`) is left unfinished instead, as a crash leaves it, for the next
	 * process to continue (`continueTask`): its Trace is flushed and closed first, so the abort
	 * that then stops its tools and model request writes no `abort` or `done` (nor publishes them);
	 * a call it had started gets its `interrupted` output when it is continued, and never runs
	 * again. Its end here still lets the Session go as any Task's does (its messages committed,
	 * its Trace uploaded, the lease released).
	 */
	async close(why: HostStop = new HostStop("the server shut down")): Promise<void> {
		const work = this.work;
		if (work !== undefined && !work.controller.signal.aborted && work.keepOnClose()) {
			work.leftUnfinished = true;
			await this.session?.close();
			this.session = undefined;
			work.controller.abort(new Error("the server is shutting down"));
			await work.finished;
			return;
		}
		// Nobody stopped it: its `done` says the server did and why (HostStop), which the app tells the person.
		this.abort(why);
		await this.work?.finished;
		await this.session?.close();
		this.session = undefined;
	}

	/** The Session is gone: its readers' streams end. */
	endReaders(): void {
		this.log.endAll();
	}

	async deleteFiles(): Promise<void> {
		await this.host.sessions.delete(this.id);
	}

	/**
	 * The engine asks about a call it announced with `confirmation_required` (already registered
	 * by `publish`); the answer comes from `ask-user-response`, from any viewer, for as long as the
	 * Task lives. A tool allowed with "always" is never asked about: the engine decides it first.
	 */
	private readonly approve: ApproveFn = async (call, { signal, correlationId }) => {
		await this.confirmations.request({
			correlationId,
			callId: call.callId,
			name: call.name,
			arguments: call.arguments,
			requestedAt: Date.now(),
		});
		return this.confirmations.wait(correlationId, signal);
	};

	/**
	 * `hostDriven`: work the host drives (a workflow's), which may continue the Task a dead process
	 * ran (`continueTask`) — then the steer and abort recorded for that Task are its own. A person's
	 * Task or a compaction never continues one.
	 */
	private async begin(
		start: StartWork,
		follower: SessionListener | undefined,
		keepOnClose: () => boolean = () => false,
		hostDriven = false,
	): Promise<void> {
		const followers = new Set<SessionListener>(follower === undefined ? [] : [follower]);
		const { controller, release, work } = this.takeWork(followers, keepOnClose);
		let stream: AsyncGenerator<OmniMessage, void, undefined>;
		let recorded: SessionAction[] = [];
		let claimed = false;
		try {
			// Across processes the claim is a lease (409 when another one runs a Task here), and the
			// Session is loaded again, as another process may have added to its Trace since. The copy
			// loaded before is closed once the lease is ours, before the Trace is brought up to date.
			await this.host.coordinator.claim(this.id, this.closeStale);
			claimed = true;
			const session = await this.loadForTask();
			const continues = hostDriven && session.unfinishedTask !== undefined;
			recorded = await this.host.coordinator.actionsFor(this.id, continues);
			// Before it starts: a continued Task runs none of its decided calls.
			if (recorded.some((action) => action.kind === "abort")) controller.abort(new Error("aborted through the API"));
			stream = start(session, controller.signal);
		} catch (error) {
			if (claimed) await this.host.coordinator.release(this.id).catch((e: unknown) => this.host.report(e));
			this.work = undefined;
			release();
			throw error;
		}
		this.log.beginTask();
		this.host.metrics.tasksStarted++;
		this.statusChanged();
		void this.pump(stream, followers, work).finally(release);
		// The stream's first read opened the Task's steering: recorded steers reach it now, in order.
		for (const action of recorded) if (action.kind === "steer") this.steerHere(action.text);
		this.host.coordinator.begun(this.id);
	}

	/**
	 * Takes the Session for one piece of work (a Task, a compaction, work between Tasks): 409 while
	 * another holds it. Taken before the first await, so a second request in the same moment gets
	 * 409. `release` settles the work's `finished` once the caller has let go of it.
	 */
	private takeWork(
		followers: Set<SessionListener>,
		keepOnClose: () => boolean,
	): { controller: AbortController; release: () => void; work: RunningWork } {
		if (this.work !== undefined)
			throw new HttpError("session_busy", `session ${this.id} is busy: a Task or compaction runs`);
		const controller = new AbortController();
		let release!: () => void;
		const finished = new Promise<void>((resolve) => {
			release = resolve;
		});
		const work: RunningWork = { controller, finished, followers, keepOnClose, leftUnfinished: false };
		this.work = work;
		return { controller, release, work };
	}

	private async pump(
		stream: AsyncGenerator<OmniMessage, void, undefined>,
		followers: Set<SessionListener>,
		work: RunningWork,
	) {
		try {
			for await (const message of stream) if (!work.leftUnfinished) this.publish(message, followers);
		} catch (error) {
			this.host.report(error);
		} finally {
			// The Task's last writes below are conditional on its claim, taken before it goes: a
			// process that lost the Session (paused past its lease) writes nothing more for it.
			const fence = this.host.coordinator.sessionFence(this.id);
			// Before `work` goes: a next Task here must not claim the lease this one is releasing.
			await this.host.coordinator.release(this.id).catch((error: unknown) => this.host.report(error));
			this.work = undefined;
			this.log.endTask();
			await this.confirmations.interruptAll(fence).catch((error: unknown) => this.host.report(error));
			// Not awaited: a store locked by another process must not hold the end of the Task's stream.
			this.update({ updatedAt: Date.now() }, fence).catch((error: unknown) =>
				reportStoreFailure(this.host, { sessionId: this.id, operation: "updated_at", error, retrying: false }),
			);
			for (const follower of followers) follower.ended?.();
			this.statusChanged();
		}
	}

	private publish(message: OmniMessage, followers: Set<SessionListener>): void {
		this.host.metrics.messagesEmitted++;
		if (message.type === "confirmation_required") {
			// Pending from the moment a viewer can see it: an answer may come before `approve` is called.
			const { correlationId, callId, name } = message;
			this.confirmations
				.request({ correlationId, callId, name, arguments: message.arguments, requestedAt: message.ts })
				.catch((error: unknown) => this.host.report(error));
		}
		// Logged first: a log that writes it durably takes its usage row into the same statement, and
		// the usage recorder then finds it written (cluster/events/event-log.ts).
		this.log.publish(message, followers, this.report, usageRowOf(this, message));
		// A failure recording a message must never stop reading the Task (that would abort it).
		try {
			recordMessage(this, message);
		} catch (error) {
			this.host.report(error);
		}
	}

	/** Made once: `publish` hands it on with every message. */
	private readonly report = (error: unknown): void => this.host.report(error);

	/** A copy of the Session loaded before a claim or refresh: the shared Trace may have grown since. */
	private readonly closeStale = async (): Promise<void> => {
		await this.session?.close();
		this.session = undefined;
	};

	private async loadForTask(): Promise<Session> {
		if (this.reloadBeforeNextTask && this.session !== undefined) {
			this.reloadBeforeNextTask = false;
			await this.session.close();
			this.session = undefined;
		}
		return this.load();
	}

	private load(): Promise<Session> {
		if (this.session !== undefined) return Promise.resolve(this.session);
		this.loading ??= (async () => {
			try {
				const agent = await this.host.agents.get(this.row.agentId);
				this.session = await agent.resumeSession(this.id);
				// The resume moved the newest file's damaged lines aside (core's trace-repair.ts).
				this.log.damage.movedAside();
				return this.session;
			} finally {
				this.loading = undefined;
			}
		})();
		return this.loading;
	}

	/** `fence`: a Task's write, conditional on its claim (none is made once it was lost). */
	async update(
		change: Partial<Pick<StoredSession, "title" | "updatedAt" | "lockCredential">>,
		fence: SessionFence = UNFENCED,
	): Promise<void> {
		if (fence.lost) return;
		this.row = { ...this.row, ...change };
		await this.host.store.updateSession(this.id, change, fence.condition);
	}

	statusChanged(): void {
		this.host.bus.publish({ type: "session_status", sessionId: this.id, status: this.status, lock: this.lock });
	}
}

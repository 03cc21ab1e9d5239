import { isPartialMessage, type OmniMessage } from "@omniloop/core";
import { type SessionListener, SessionLog } from "../host/log/session-log.js";
import { messageFrame } from "../sse/frames.js";
import type { UsageRow } from "../store/store.js";
import type { EventLogWriter } from "./events/event-log.js";
import type { EventTail, TailTarget } from "./events/event-tail.js";
import type { BegunFile } from "./trace/trace-rebuild.js";

/**
 * A reader that joined while its backlog is still being read from the database: live messages
 * wait behind it, so the reader gets the backlog first and then the rest, in seq order (its
 * viewer drops the seqs it already has). The tail hands every reader the rows between its cursor
 * and the new reader's position (the others need them): those at or below `after` are not this
 * reader's.
 */
class Gate implements SessionListener {
	private held: { message: OmniMessage; frame: string }[] | undefined = [];
	private endedEarly = false;

	constructor(
		readonly inner: SessionListener,
		private readonly after: number,
	) {}

	message(message: OmniMessage, frame: string): void {
		if (message.seq <= this.after) return;
		if (this.held !== undefined) this.held.push({ message, frame });
		else this.inner.message(message, frame);
	}

	ended(): void {
		if (this.held !== undefined) this.endedEarly = true;
		else this.inner.ended?.();
	}

	open(backlog: readonly OmniMessage[]): void {
		const held = this.held ?? [];
		this.held = undefined;
		for (const message of backlog) if (message.seq > this.after) this.inner.message(message, messageFrame(message));
		for (const { message, frame } of held) this.inner.message(message, frame);
		if (this.endedEarly) this.inner.ended?.();
	}
}

/**
 * A Session's log when several processes share a database: what runs here also goes to the event
 * log (batched), readers here also get what runs elsewhere (through the tail), and a reader's
 * backlog comes from the database, merged with this process's recent window.
 */
export class ClusterSessionLog extends SessionLog implements TailTarget {
	private readonly gates = new Map<SessionListener, Gate>();
	/** The last seq the Task's stream handed to this log (lease lost or not), and who waits for one. */
	private read = 0;
	private readers: { seq: number; resolve: () => void }[] = [];
	/** The Task here lost the lease: once it is over here, what the taker wrote is read. */
	private rereadAfterTask = false;

	constructor(
		home: string,
		sessionId: string,
		private readonly writer: EventLogWriter,
		private readonly tail: EventTail,
		private readonly running: () => boolean,
		/** The epoch of this process's lease on the Session; undefined once lost. */
		private readonly epoch: () => number | undefined,
		/** The Trace file a compaction that ended at the seq began here (TraceSync.begunBy). */
		private readonly begunBy: (compactionSeq: number) => BegunFile | undefined,
		private readonly report: (error: unknown) => void,
	) {
		super(home, sessionId);
		tail.follow(sessionId, this);
	}

	get runningHere(): boolean {
		return this.running();
	}

	/** The Task here lost its lease (Cluster.release): its end reads what another process wrote meanwhile. */
	lostTask(): void {
		this.rereadAfterTask = true;
	}

	/** Not running here any more, so the tail reads the Session again: nothing notified meanwhile is missed. */
	override endTask(): void {
		super.endTask();
		if (!this.rereadAfterTask) return;
		this.rereadAfterTask = false;
		this.tail.reread(this.sessionId);
	}

	get watched(): boolean {
		return this.listeners.size > 0;
	}

	/**
	 * Written to the event log under the lease's epoch, and handed to the readers here once the
	 * row is committed: no reader sees a seq that a process taking the Session over could not see
	 * (docs/cluster.md). Once the lease is lost, nothing more is written or shown. An ok
	 * `compaction_end` takes the new Trace file's header along: the engine began that file before
	 * the message reached the host (compaction.ts rotates in the same step that emits it).
	 */
	override publish(
		message: OmniMessage,
		followers: ReadonlySet<SessionListener>,
		report: (error: unknown) => void,
		usage?: UsageRow,
	): void {
		try {
			this.write(message, followers, report, usage);
		} finally {
			this.handed(message.seq);
		}
	}

	/**
	 * Resolves once the Task's stream has handed this log every message up to `seq` (appended to
	 * the event log's writer then, unless the lease was lost): the engine emits ahead of the host.
	 */
	readUpTo(seq: number): Promise<void> {
		if (this.read >= seq) return Promise.resolve();
		return new Promise((resolve) => this.readers.push({ seq, resolve }));
	}

	private handed(seq: number): void {
		this.read = Math.max(this.read, seq);
		const waiting = this.readers.filter((r) => r.seq > this.read);
		for (const reader of this.readers) if (reader.seq <= this.read) reader.resolve();
		this.readers = waiting;
	}

	private write(
		message: OmniMessage,
		followers: ReadonlySet<SessionListener>,
		report: (error: unknown) => void,
		usage: UsageRow | undefined,
	): void {
		const epoch = this.epoch();
		if (epoch === undefined) return;
		const begun = this.compactionFile(message);
		this.writer.append(this.sessionId, message, epoch, () => super.publish(message, followers, report), {
			usage,
			begun,
		});
	}

	private compactionFile(message: OmniMessage): BegunFile | undefined {
		if (message.type !== "compaction_end" || message.status !== "ok") return undefined;
		const begun = this.begunBy(message.seq);
		if (begun === undefined)
			this.report(
				new Error(
					`session ${this.sessionId}: the Trace file its compaction began (seq ${message.seq}) is not on disk; a process taking the Session over goes on in the file before`,
				),
			);
		return begun;
	}

	/** Rows another process wrote, to the readers here. */
	deliver(messages: OmniMessage[]): void {
		for (const message of messages) {
			const frame = messageFrame(message);
			for (const listener of this.listeners) {
				try {
					listener.message(message, frame);
				} catch (error) {
					this.report(error);
				}
			}
		}
	}

	override subscribe(after: number | undefined, listener: SessionListener): OmniMessage[] {
		const gate = new Gate(listener, after ?? -1);
		this.gates.set(listener, gate);
		this.listeners.add(gate);
		const local = after === undefined ? [] : this.window.after(after);
		this.tail.join(this.sessionId, after).then(
			(rows) => gate.open(withoutFinishedPartials(mergeBySeq(rows, local))),
			(error: unknown) => {
				this.report(error);
				gate.open(local);
			},
		);
		return [];
	}

	/**
	 * Any process serves any Session's history: the event log's complete messages (what Tasks on
	 * every process emitted), with this process's unflushed ones and, for Sessions older than the
	 * database, the Trace files here.
	 */
	override async history(after: number): Promise<OmniMessage[]> {
		const rows = await this.tail.rowsAfter(this.sessionId, after, false);
		const local = this.window.after(after, false);
		return mergeBySeq(mergeBySeq(this.messagesAfter(after, false), rows), local);
	}

	override unsubscribe(listener: SessionListener): void {
		const gate = this.gates.get(listener);
		this.gates.delete(listener);
		this.listeners.delete(gate ?? listener);
	}

	override endAll(): void {
		super.endAll();
		this.gates.clear();
		this.tail.unfollow(this.sessionId);
	}
}

/**
 * A replay holds partials of the running Task only, as the recent window does with SQLite: the
 * partials before the last `done` are of a Task that ended (its complete messages say the same).
 * Live readers get every row; the table drops those partials when the next Task starts.
 */
function withoutFinishedPartials(messages: OmniMessage[]): OmniMessage[] {
	const lastDone = messages.findLastIndex((m) => m.type === "done");
	if (lastDone === -1) return messages;
	return messages.filter((m, index) => index > lastDone || !isPartialMessage(m));
}

/** Two seq-ordered lists as one, each seq once. */
function mergeBySeq(a: readonly OmniMessage[], b: readonly OmniMessage[]): OmniMessage[] {
	const bySeq = new Map<number, OmniMessage>();
	for (const message of [...a, ...b]) bySeq.set(message.seq, message);
	return [...bySeq.values()].sort((x, y) => x.seq - y.seq);
}

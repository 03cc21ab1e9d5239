/** Where a Task is: its work runs; its ending is being written (abort, done); it is over. */
export type TaskPhase = "running" | "ending" | "ended";

/** What ending a Task does around the work's own ending (task-context.ts gives them). */
export interface TaskEnding {
	/** Stops every emission but the final ones, and the Task's tools and model stream. */
	close(): void;
	/** Frees the Session for the next Task. Idempotent. */
	release(): void;
	/** Ends the run's output: the reader gets its last message, then the end. */
	end(): void;
}

/**
 * A Task's life: running → ending → ended, each once. `finish` is the one way to end it, from
 * whichever side gets there first (the loop reaching `done`, an abort that fires while the loop
 * waits on a model, a compaction that completes): later calls change nothing.
 */
export class TaskLifecycle {
	phase: TaskPhase = "running";
	/**
	 * How the work ends its Task when the Task's signal fires (a run's `done`, a compaction's
	 * close); set by the work. It runs from the abort itself, so the Task ends at once even if the
	 * loop is still waiting on a model.
	 */
	onInterrupted: (() => Promise<void>) | undefined;
	/** Settles when the Task has ended. */
	readonly ended: Promise<void>;
	private markEnded!: () => void;

	constructor(private readonly ending: TaskEnding) {
		this.ended = new Promise<void>((resolve) => {
			this.markEnded = resolve;
		});
	}

	get running(): boolean {
		return this.phase === "running";
	}

	/** Frees the Session before the Task's last message, for a host that starts the next Task on reading it. */
	release(): void {
		this.ending.release();
	}

	/**
	 * Ends the Task once: closes its emissions, runs `last` (what this kind of work emits and
	 * records last), then frees the Session and ends the output, even if `last` throws.
	 */
	async finish(last: () => void | Promise<void>): Promise<void> {
		if (this.phase !== "running") return;
		this.phase = "ending";
		try {
			this.ending.close();
			await last();
		} finally {
			this.ending.release();
			this.ending.end();
			this.phase = "ended";
			this.markEnded();
		}
	}
}

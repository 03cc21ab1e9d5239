import type { Store, UsageRow } from "../store/store.js";

/**
 * A usage row the store refused: `retrying` true when it stays in memory and is tried again, false
 * when the refusal is final (see UsageRecorderOptions.isFinal).
 */
export type UsageFailure = (row: UsageRow, error: unknown, retrying: boolean) => void;

/** Where rows go: the store, or with Postgres the cluster, which fences each row by the Session's lease. */
export type UsageWriter = Pick<Store, "addUsage">;

const FIRST_RETRY_MS = 50;
const LAST_RETRY_MS = 5000;

/**
 * Usage rows are billing history (docs/protocol.md: one row per `token_usage`): a row the store cannot
 * take now (another process holds its lock, the database is down) is kept in memory and written
 * again, with a growing wait, until it is in; never dropped. Rows go in one at a time, in order;
 * `addUsage` is idempotent, so a row written twice (a timeout after the commit) is still one row.
 */
export class UsageRecorder {
	private readonly pending: UsageRow[] = [];
	private writing = false;
	private retryMs = FIRST_RETRY_MS;
	private timer: NodeJS.Timeout | undefined;
	private closed = false;

	constructor(
		private readonly store: UsageWriter,
		private readonly failed: UsageFailure,
		/**
		 * A refusal no retry can change: this process lost the Session's lease, so the row is the
		 * new holder's to write, never this one's (docs/cluster.md). Such a row is reported and dropped.
		 */
		private readonly isFinal: (error: unknown) => boolean = () => false,
	) {}

	/** Rows not written yet. */
	get pendingRows(): number {
		return this.pending.length;
	}

	record(row: UsageRow): void {
		this.pending.push(row);
		void this.drain();
	}

	/** Writes what is pending (one last try each): returns the rows that could not be written. */
	async close(): Promise<UsageRow[]> {
		this.closed = true;
		if (this.timer !== undefined) clearTimeout(this.timer);
		this.timer = undefined;
		while (this.writing) await new Promise((resolve) => setImmediate(resolve));
		const left: UsageRow[] = [];
		for (const row of this.pending.splice(0)) {
			try {
				await this.store.addUsage(row);
			} catch {
				left.push(row);
			}
		}
		return left;
	}

	private async drain(): Promise<void> {
		if (this.writing || this.timer !== undefined || this.closed) return;
		this.writing = true;
		try {
			for (let row = this.pending[0]; row !== undefined; row = this.pending[0]) {
				try {
					await this.store.addUsage(row);
				} catch (error) {
					if (this.isFinal(error)) {
						this.pending.shift();
						this.failed(row, error, false);
						continue;
					}
					this.failed(row, error, true);
					this.retryLater();
					return;
				}
				this.pending.shift();
				this.retryMs = FIRST_RETRY_MS;
			}
		} finally {
			this.writing = false;
		}
	}

	private retryLater(): void {
		if (this.closed) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			void this.drain();
		}, this.retryMs);
		this.timer.unref();
		this.retryMs = Math.min(LAST_RETRY_MS, this.retryMs * 2);
	}
}

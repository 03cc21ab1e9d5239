import type { Store, UsageRow } from "../store/store.js";

/** A usage row the store refused; `retrying` is always true: the row stays in memory and is tried again. */
export type UsageFailure = (row: UsageRow, error: unknown) => void;

const FIRST_RETRY_MS = 50;
const LAST_RETRY_MS = 5000;

/**
 * Usage rows are billing history (DESIGN §9: one row per `token_usage`): a row the store cannot
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
		private readonly store: Store,
		private readonly failed: UsageFailure,
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
					this.failed(row, error);
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

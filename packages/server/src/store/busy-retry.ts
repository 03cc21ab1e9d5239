import { setTimeout as sleep } from "node:timers/promises";
import {
	type CompiledQuery,
	type DatabaseConnection,
	type Driver,
	type QueryResult,
	type SqliteDatabase,
	SqliteDialect,
	type TransactionSettings,
} from "kysely";

/** What the store tells `/metrics` about waiting on another process's lock. */
export interface StoreCounters {
	/** A statement found the database locked by another process and will be tried again. */
	storeBusyRetry(): void;
}

export interface BusyPolicy {
	/** How long a statement keeps trying, asynchronously, before it is given up (`server.storeBusyMs`). */
	giveUpMs: number;
	counters: StoreCounters;
}

/** A store statement given up: another process held the database's write lock for longer than `giveUpMs`. */
export class StoreBusyError extends Error {
	override readonly name = "StoreBusyError";
}

/**
 * SQLite with better-sqlite3 is synchronous: its own `busy_timeout` waits for another process's
 * lock with the event loop stopped. So the connection waits only a few ms itself (the pragma set
 * in sqlite.ts), and a statement that still finds the database locked is tried again after an
 * asynchronous backoff, until `giveUpMs` — the Tasks and streams go on meanwhile.
 */
export class BusyRetryDialect extends SqliteDialect {
	private driver: BusyRetryDriver | undefined;

	constructor(
		private readonly database: SqliteDatabase,
		private readonly policy: BusyPolicy,
	) {
		super({ database });
	}

	override createDriver(): Driver {
		this.driver = new BusyRetryDriver(super.createDriver(), this.policy);
		return this.driver;
	}

	/**
	 * Runs `query` at once, past Kysely's executor, when no query of Kysely's holds or waits for the
	 * connection: that executor (its connection provider, the driver's mutex, the retry above)
	 * costs a one-row statement several times what SQLite spends running it: about a tenth of a
	 * Task's start (docs/performance.md). better-sqlite3 runs a statement synchronously, so nothing
	 * comes between the check and the run. Kysely asks the driver for the connection in the same
	 * tick a query is given to it (`held` counts it from then), so a statement asked after one that
	 * went through Kysely waits behind it: the store's statements run in the order they were asked.
	 * Undefined when it did not run: the connection was held, or another process holds the
	 * database's lock — the caller then goes through Kysely, which waits its turn and retries.
	 * What runs here passes no Kysely plugin or `log` (the store configures none), and the dialect
	 * serves one Kysely instance (the last made on it).
	 */
	runNow<R>(query: CompiledQuery): QueryResult<R> | undefined {
		const driver = this.driver;
		if (driver === undefined || driver.held > 0 || driver.lockSeen) return undefined;
		try {
			// As Kysely's SqliteConnection.executeQuery runs one (not exported): read it again on an upgrade.
			const statement = this.database.prepare(query.sql);
			if (statement.reader) return { rows: statement.all(query.parameters) as R[] };
			const { changes, lastInsertRowid } = statement.run(query.parameters);
			return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
		} catch (error) {
			if (!isBusy(error)) throw error;
			driver.lockSeen = true;
			this.policy.counters.storeBusyRetry();
			return undefined;
		}
	}
}

class BusyRetryDriver implements Driver {
	private connection: RetryingConnection | undefined;
	/** Kysely's queries that hold the connection or wait for it (runNow runs only when there are none). */
	held = 0;
	/**
	 * Another process's lock stopped a statement of runNow's, and none has run through Kysely
	 * since: runNow declines without trying, since each try waits `busy_timeout` with the event
	 * loop stopped, and Kysely's first try of the same statement would wait again.
	 */
	lockSeen = false;

	constructor(
		private readonly inner: Driver,
		private readonly policy: BusyPolicy,
	) {}

	init(): Promise<void> {
		return this.inner.init();
	}

	async acquireConnection(): Promise<DatabaseConnection> {
		this.held++;
		try {
			// SQLite has one connection (the inner driver serializes its use): one wrapper for it.
			const raw = await this.inner.acquireConnection();
			this.connection ??= new RetryingConnection(raw, this.policy, () => {
				this.lockSeen = false;
			});
			return this.connection;
		} catch (error) {
			this.held--;
			throw error;
		}
	}

	async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
		await this.inner.beginTransaction(connection, settings);
		// Inside a transaction a busy statement is not retried: SQLite wants the transaction rolled back.
		(connection as RetryingConnection).inTransaction = true;
	}

	async commitTransaction(connection: DatabaseConnection): Promise<void> {
		(connection as RetryingConnection).inTransaction = false;
		await this.inner.commitTransaction(connection);
	}

	async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
		(connection as RetryingConnection).inTransaction = false;
		await this.inner.rollbackTransaction(connection);
	}

	releaseConnection(connection: DatabaseConnection): Promise<void> {
		this.held--;
		return this.inner.releaseConnection(connection);
	}

	destroy(): Promise<void> {
		return this.inner.destroy();
	}
}

class RetryingConnection implements DatabaseConnection {
	inTransaction = false;

	constructor(
		private readonly raw: DatabaseConnection,
		private readonly policy: BusyPolicy,
		/** A statement ran: the database is not locked (now). */
		private readonly ran: () => void,
	) {}

	async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
		const deadline = performance.now() + this.policy.giveUpMs;
		for (let attempt = 0; ; attempt++) {
			try {
				const result = await this.raw.executeQuery<R>(query);
				this.ran();
				return result;
			} catch (error) {
				if (!isBusy(error) || this.inTransaction) throw error;
				const wait = Math.min(250, 5 * 2 ** attempt);
				if (performance.now() + wait > deadline) {
					throw new StoreBusyError(
						`the store is locked by another process: "${statementOf(query)}" given up after ${this.policy.giveUpMs} ms`,
						{ cause: error },
					);
				}
				this.policy.counters.storeBusyRetry();
				await sleep(wait);
			}
		}
	}

	streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
		return this.raw.streamQuery<R>(query, chunkSize);
	}
}

/** SQLITE_BUSY (and its extended codes): another connection holds the lock. */
function isBusy(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** The statement's verb and table, for the error: never its parameters (they may hold a credential). */
function statementOf(query: CompiledQuery): string {
	return query.sql.split(/\s+/).slice(0, 3).join(" ");
}

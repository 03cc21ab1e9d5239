import type { Usage } from "@omniloop/core";
import type { CompiledQuery, Kysely, QueryResult, Selectable } from "kysely";
import { WorkflowStore } from "../workflows/workflow-store.js";
import { QueryTemplate } from "./query-template.js";
import type { ConfirmationsTable, Database, SessionsTable, UsageRowsTable } from "./schema.js";
import type {
	RecordedDecision,
	Store,
	StoredConfirmation,
	StoredSession,
	UsageGroupBy,
	UsageQuery,
	UsageRow,
	UsageSum,
	WriteFence,
} from "./store.js";

/** What `updateSession` writes: some columns of one Session's row. */
type SessionChange = Partial<SessionsTable> & { id: string };

/**
 * Runs a compiled statement at once where the dialect can (SQLite: busy-retry.ts's `runNow`);
 * undefined when it did not, and Kysely runs it instead.
 */
export type RunNow = (query: CompiledQuery) => QueryResult<unknown> | undefined;

const GROUP_COLUMN = { day: "day", model: "model", session: "session_id", agent: "agent_id" } as const;

/**
 * The Store on any Kysely dialect. Only portable SQL: `ON CONFLICT DO NOTHING`, plain GROUP BY,
 * and every number read back through `Number()` (pg returns int8 and sums as strings).
 */
export class KyselyStore implements Store {
	/** Keeps a Session's confirmations in the order they were asked, even within one millisecond. */
	private position = Date.now() * 1000;
	readonly workflows: WorkflowStore;
	/** Built once: a Session made and a Task started run these (query-template.ts). */
	private readonly putSessionQuery: QueryTemplate<SessionsTable>;
	/** By the columns a change sets. */
	private readonly updateSessionQueries = new Map<string, QueryTemplate<SessionChange>>();
	private readonly addUsageQuery: QueryTemplate<UsageRowsTable>;

	/** `runNow`: the hot statements (a Session made, a Task started and ended) are offered to it first. */
	constructor(
		private readonly db: Kysely<Database>,
		private readonly onClose: () => Promise<void> = async () => {},
		private readonly runNow: RunNow = () => undefined,
	) {
		this.workflows = new WorkflowStore(db);
		this.putSessionQuery = new QueryTemplate<SessionsTable>((slot) => {
			const row: SessionsTable = {
				id: slot("id"),
				agent_id: slot("agent_id"),
				model: slot("model"),
				workspace_dir: slot("workspace_dir"),
				title: slot("title"),
				created_at: slot("created_at"),
				updated_at: slot("updated_at"),
				lock_credential: slot("lock_credential"),
			};
			return db
				.insertInto("sessions")
				.values(row)
				.onConflict((oc) => oc.column("id").doUpdateSet({ ...row, id: undefined }));
		});
		this.addUsageQuery = new QueryTemplate<UsageRowsTable>((slot) =>
			db
				.insertInto("usage_rows")
				.values({
					session_id: slot("session_id"),
					seq: slot("seq"),
					agent_id: slot("agent_id"),
					model: slot("model"),
					ts: slot("ts"),
					day: slot("day"),
					input: slot("input"),
					output: slot("output"),
					cache_read: slot("cache_read"),
					cache_write: slot("cache_write"),
					reasoning: slot("reasoning"),
					total: slot("total"),
				})
				.onConflict((oc) => oc.columns(["session_id", "seq"]).doNothing()),
		);
	}

	async putSession(session: StoredSession): Promise<void> {
		await this.execute(this.putSessionQuery.bind(toSessionRow(session)));
	}

	async getSession(id: string): Promise<StoredSession | undefined> {
		const row = await this.db.selectFrom("sessions").selectAll().where("id", "=", id).executeTakeFirst();
		return row === undefined ? undefined : fromSessionRow(row);
	}

	async listSessions(): Promise<StoredSession[]> {
		const rows = await this.db.selectFrom("sessions").selectAll().orderBy("updated_at", "desc").execute();
		return rows.map(fromSessionRow);
	}

	async updateSession(
		id: string,
		change: Partial<Pick<StoredSession, "title" | "updatedAt" | "lockCredential">>,
		fence?: WriteFence,
	): Promise<void> {
		const set: Partial<SessionsTable> = {};
		if (change.title !== undefined) set.title = change.title;
		if (change.updatedAt !== undefined) set.updated_at = change.updatedAt;
		if (change.lockCredential !== undefined) set.lock_credential = change.lockCredential;
		const columns = Object.keys(set) as (keyof SessionsTable)[];
		if (columns.length === 0) return;
		if (fence !== undefined) {
			await this.db.updateTable("sessions").set(set).where("id", "=", id).where(fence).execute();
			return;
		}
		const key = columns.join(",");
		let query = this.updateSessionQueries.get(key);
		if (query === undefined) {
			query = new QueryTemplate<SessionChange>((slot) =>
				this.db
					.updateTable("sessions")
					.set(Object.fromEntries(columns.map((column) => [column, slot(column)])) as Partial<SessionsTable>)
					.where("id", "=", slot("id")),
			);
			this.updateSessionQueries.set(key, query);
		}
		await this.execute(query.bind({ ...set, id }));
	}

	async deleteSession(id: string): Promise<void> {
		await this.db.deleteFrom("sessions").where("id", "=", id).execute();
		await this.db.deleteFrom("confirmations").where("session_id", "=", id).execute();
	}

	async addUsage(row: UsageRow): Promise<void> {
		await this.execute(
			this.addUsageQuery.bind({
				session_id: row.sessionId,
				seq: row.seq,
				agent_id: row.agentId,
				model: row.model,
				ts: row.ts,
				day: new Date(row.ts).toISOString().slice(0, 10),
				input: row.input,
				output: row.output,
				cache_read: row.cacheRead,
				cache_write: row.cacheWrite,
				reasoning: row.reasoning,
				total: row.total,
			}),
		);
	}

	async lastUsageSeq(sessionId: string): Promise<number> {
		const row = await this.db
			.selectFrom("usage_rows")
			.select((eb) => eb.fn.max("seq").as("seq"))
			.where("session_id", "=", sessionId)
			.executeTakeFirst();
		// Postgres hands back MAX of an int8 as a string; no rows, as null.
		return Number(row?.seq ?? 0);
	}

	async usageRows(query: UsageQuery): Promise<UsageRow[]> {
		const rows = await this.filtered(query).selectAll().orderBy("ts").orderBy("session_id").orderBy("seq").execute();
		return rows.map(fromUsageRow);
	}

	async usageSums(query: UsageQuery, groupBy: UsageGroupBy): Promise<UsageSum[]> {
		const column = GROUP_COLUMN[groupBy];
		const rows = await this.filtered(query)
			.select((eb) => [
				eb.ref(column).as("key"),
				"model",
				eb.fn.countAll().as("requests"),
				eb.fn.sum("input").as("input"),
				eb.fn.sum("output").as("output"),
				eb.fn.sum("cache_read").as("cache_read"),
				eb.fn.sum("cache_write").as("cache_write"),
				eb.fn.sum("reasoning").as("reasoning"),
				eb.fn.sum("total").as("total"),
			])
			.groupBy([column, "model"])
			.orderBy("key")
			.execute();
		return rows.map((row) => ({
			key: String(row.key),
			model: row.model,
			requests: Number(row.requests),
			...tokensOf(row),
		}));
	}

	async addConfirmation(
		confirmation: Omit<StoredConfirmation, "decision" | "decidedAt">,
		fence?: WriteFence,
	): Promise<void> {
		const row: ConfirmationsTable = {
			correlation_id: confirmation.correlationId,
			session_id: confirmation.sessionId,
			call_id: confirmation.callId,
			name: confirmation.name,
			arguments: confirmation.arguments,
			requested_at: confirmation.requestedAt,
			decision: null,
			decided_at: null,
			position: ++this.position,
		};
		const insert = this.db.insertInto("confirmations");
		const written =
			fence === undefined
				? insert.values(row)
				: insert
						.columns(Object.keys(row) as (keyof ConfirmationsTable)[])
						.expression(
							this.db
								.selectNoFrom((eb) => Object.entries(row).map(([column, value]) => eb.val(value).as(column)))
								.where(fence),
						);
		// A workflow's Task continued after a restart asks again under the same correlation id.
		await written.onConflict((oc) => oc.column("correlation_id").doNothing()).execute();
	}

	async getConfirmation(correlationId: string): Promise<StoredConfirmation | undefined> {
		const row = await this.db
			.selectFrom("confirmations")
			.selectAll()
			.where("correlation_id", "=", correlationId)
			.executeTakeFirst();
		return row === undefined ? undefined : fromConfirmationRow(row);
	}

	async decideConfirmation(
		correlationId: string,
		decision: RecordedDecision,
		at: number,
		fence?: WriteFence,
	): Promise<RecordedDecision> {
		// The conditional update is the claim: of two answers racing, exactly one changes a row.
		let update = this.db
			.updateTable("confirmations")
			.set({ decision, decided_at: at })
			.where("correlation_id", "=", correlationId)
			.where("decision", "is", null);
		if (fence !== undefined) update = update.where(fence);
		const result = await update.executeTakeFirst();
		if (Number(result.numUpdatedRows) === 1) return decision;
		const stored = await this.getConfirmation(correlationId);
		return stored?.decision ?? decision;
	}

	async pendingConfirmations(sessionId: string): Promise<StoredConfirmation[]> {
		const rows = await this.db
			.selectFrom("confirmations")
			.selectAll()
			.where("session_id", "=", sessionId)
			.where("decision", "is", null)
			.orderBy("position")
			.execute();
		return rows.map(fromConfirmationRow);
	}

	async interruptPendingConfirmations(at: number, sessionId?: string): Promise<number> {
		let query = this.db
			.updateTable("confirmations")
			.set({ decision: "interrupted", decided_at: at })
			.where("decision", "is", null);
		if (sessionId !== undefined) query = query.where("session_id", "=", sessionId);
		const result = await query.executeTakeFirst();
		return Number(result.numUpdatedRows);
	}

	async setCredential(name: string, value: string, at: number): Promise<void> {
		await this.db
			.insertInto("credentials")
			.values({ name, value, updated_at: at })
			.onConflict((oc) => oc.column("name").doUpdateSet({ value, updated_at: at }))
			.execute();
	}

	async credentials(): Promise<Map<string, string>> {
		const rows = await this.db.selectFrom("credentials").select(["name", "value"]).execute();
		return new Map(rows.map((row) => [row.name, row.value]));
	}

	async close(): Promise<void> {
		await this.db.destroy();
		await this.onClose();
	}

	/** Offered to `runNow` first: Kysely's executor runs what it declines. */
	private execute(query: CompiledQuery): Promise<QueryResult<unknown>> {
		const result = this.runNow(query);
		return result === undefined ? this.db.executeQuery(query) : Promise.resolve(result);
	}

	private filtered(query: UsageQuery) {
		let q = this.db.selectFrom("usage_rows");
		if (query.sessionId !== undefined) q = q.where("session_id", "=", query.sessionId);
		if (query.from !== undefined) q = q.where("ts", ">=", query.from);
		if (query.to !== undefined) q = q.where("ts", "<", query.to);
		return q;
	}
}

function toSessionRow(session: StoredSession): SessionsTable {
	return {
		id: session.id,
		agent_id: session.agentId,
		model: session.model,
		workspace_dir: session.workspaceDir,
		title: session.title,
		created_at: session.createdAt,
		updated_at: session.updatedAt,
		lock_credential: session.lockCredential,
	};
}

function fromSessionRow(row: Selectable<SessionsTable>): StoredSession {
	return {
		id: row.id,
		agentId: row.agent_id,
		model: row.model,
		workspaceDir: row.workspace_dir,
		title: row.title,
		createdAt: Number(row.created_at),
		updatedAt: Number(row.updated_at),
		lockCredential: row.lock_credential,
	};
}

/** The token counts of a usage row or of a sum of them (a sum comes back as a string or a bigint on Postgres). */
function tokensOf(
	row: Record<"input" | "output" | "cache_read" | "cache_write" | "reasoning" | "total", unknown>,
): Usage {
	return {
		input: Number(row.input),
		output: Number(row.output),
		cacheRead: Number(row.cache_read),
		cacheWrite: Number(row.cache_write),
		reasoning: Number(row.reasoning),
		total: Number(row.total),
	};
}

function fromUsageRow(row: Selectable<UsageRowsTable>): UsageRow {
	return {
		sessionId: row.session_id,
		seq: Number(row.seq),
		agentId: row.agent_id,
		model: row.model,
		ts: Number(row.ts),
		...tokensOf(row),
	};
}

function fromConfirmationRow(row: Selectable<ConfirmationsTable>): StoredConfirmation {
	return {
		correlationId: row.correlation_id,
		sessionId: row.session_id,
		callId: row.call_id,
		name: row.name,
		arguments: row.arguments,
		requestedAt: Number(row.requested_at),
		decision: row.decision as RecordedDecision | null,
		decidedAt: row.decided_at === null ? null : Number(row.decided_at),
	};
}

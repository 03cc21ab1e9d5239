import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { latestTraceNumber, PRIVATE_DIR_MODE, sessionDir } from "@omniloop/core/internal";
import type pg from "pg";
import { contiguousFrom, durablePrefix, holds, replaceFrom, wholeLinesFrom } from "./trace-bytes.js";
import { appendMissing, type BegunFile, begunBy } from "./trace-rebuild.js";

const TRACE_FILE = /^trace(?:_\d{3,})?\.jsonl$/;

/**
 * A Session's Trace files in the database too, so a process with another home can run its next
 * Task: the process running a Task appends what its files gained (whole lines, as byte ranges)
 * every second and when the Task ends; a process about to run one first appends what its own
 * copy lacks. The engine keeps writing plain files (no change in core).
 */
export class TraceSync {
	/** Bytes of each `<session>/<file>` the database holds, as far as this process knows. */
	private readonly stored = new Map<string, number>();

	constructor(
		private readonly pool: pg.Pool,
		private readonly home: string,
		private readonly report: (error: unknown) => void,
	) {}

	/**
	 * Sessions whose Trace another process wrote on in the database while this one still had
	 * lines to upload: nothing more of this copy goes up (its bytes would not line up) until a
	 * claim downloads the database's copy again.
	 */
	private readonly diverged = new Set<string>();

	/**
	 * Appends to the database what the Session's files here gained since the last upload, up to
	 * the last line whose message is durable in the event log (`durableSeq`): the Trace in the
	 * database never holds what viewers could not have seen. Fenced by `epoch` (docs/cluster.md);
	 * `epoch` undefined is a Session just made, whose first lines go up only while no process
	 * ever claimed it.
	 */
	async upload(sessionId: string, epoch: number | undefined, durableSeq: number): Promise<void> {
		const dir = sessionDir(this.home, sessionId);
		if (!existsSync(dir) || this.diverged.has(sessionId)) return;
		for (const name of readdirSync(dir)
			.filter((n) => TRACE_FILE.test(n))
			.sort()) {
			const key = `${sessionId}/${name}`;
			const from = this.stored.get(key) ?? (await this.storedSize(sessionId, name));
			const bytes = durablePrefix(wholeLinesFrom(join(dir, name), from), durableSeq);
			if (bytes.length === 0) {
				this.stored.set(key, from);
				continue;
			}
			const inserted = await this.pool.query(
				`insert into trace_chunks (session_id, name, "offset", bytes, epoch)
				select $1, $2, $3, $4, coalesce($5::int8, 0)
				where ${
					epoch === undefined
						? "not exists (select 1 from session_leases where session_id = $1)"
						: "exists (select 1 from session_leases where session_id = $1 and epoch = $5 for key share)"
				}`,
				[sessionId, name, from, bytes, epoch ?? null],
			);
			if (inserted.rowCount === 0) {
				// Another process claimed the Session since: this copy stays here.
				this.stored.delete(key);
				this.diverged.add(sessionId);
				throw new Error(
					`session ${sessionId}: another process holds it now; this copy of its Trace (${name}) stays here`,
				);
			}
			this.stored.set(key, from + bytes.length);
			// A later file begins past what is durable: it waits too.
			if (bytes.length < statSync(join(dir, name)).size - from) return;
		}
	}

	/**
	 * Before a Task here: the files here get what the database has beyond them. Then they get the
	 * event log's complete messages their copy lacks (`messagesAfter`: a process that died uploaded
	 * its Trace a moment behind its rows; outputs included, so no call gets a second one), each in
	 * its file, and a reservation at `floor` (above every seq the event log ever held): the Task
	 * here goes on from there, skipping nothing and repeating nothing (trace-rebuild.ts).
	 */
	async download(
		sessionId: string,
		floor: number,
		messagesAfter: (seq: number) => Promise<readonly OmniMessage[]>,
	): Promise<void> {
		const dir = sessionDir(this.home, sessionId);
		this.diverged.delete(sessionId);
		// Only what lies beyond the bytes this process already shares with the database: a long
		// Session's Trace is not fetched whole at every claim.
		const shared = new Map<string, number>();
		for (const [key, size] of this.stored) {
			if (!key.startsWith(`${sessionId}/`)) continue;
			const name = key.slice(sessionId.length + 1);
			if (holds(join(dir, name), size)) shared.set(name, size);
		}
		const names = [...shared.keys()];
		// The chunks that end past the shared bytes: one that begins before them (its bytes were
		// uploaded in other pieces than this process's) means the shared count cannot be trusted.
		const result = await this.pool.query<{ name: string; offset: string | number; bytes: Buffer }>(
			`select c.name, c."offset", c.bytes from trace_chunks c
			left join unnest($2::text[], $3::bigint[]) as k(name, shared) on k.name = c.name
			where c.session_id = $1 and c."offset" + length(c.bytes) > coalesce(k.shared, 0)
			order by c.name, c."offset"`,
			[sessionId, names, [...shared.values()]],
		);
		const beyond = new Map<string, { offset: number; bytes: Buffer }[]>(names.map((name) => [name, []]));
		for (const row of result.rows) {
			const chunks = beyond.get(row.name) ?? [];
			beyond.set(row.name, chunks);
			chunks.push({ offset: Number(row.offset), bytes: row.bytes });
		}
		for (const [name, chunks] of beyond) {
			mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
			let from = shared.get(name) ?? 0;
			let tail: Buffer;
			if (contiguousFrom(chunks, from)) tail = Buffer.concat(chunks.map((chunk) => chunk.bytes));
			else {
				from = 0;
				tail = await this.wholeFile(sessionId, name);
			}
			this.stored.set(`${sessionId}/${name}`, from + tail.length);
			// The database's copy is the Trace: a copy here that differs beyond the shared bytes
			// (behind, or with lines a stale Session wrote when it closed) is replaced by it.
			replaceFrom(join(dir, name), from, tail);
		}
		if (!existsSync(dir) || latestTraceNumber(dir) === 0 || floor === 0) return;
		const { lostCompaction } = await appendMissing(dir, floor, messagesAfter);
		if (lostCompaction !== undefined)
			this.report(
				new Error(
					`session ${sessionId}: the Trace file its compaction at seq ${lostCompaction} began never reached the database; it goes on in the file before, whose context holds what came before the compaction`,
				),
			);
	}

	/** The file the Session's compaction that ended at `compactionSeq` began here (see `begunBy`). */
	begunBy(sessionId: string, compactionSeq: number): BegunFile | undefined {
		return begunBy(sessionDir(this.home, sessionId), compactionSeq);
	}

	private async wholeFile(sessionId: string, name: string): Promise<Buffer> {
		const result = await this.pool.query<{ bytes: Buffer }>(
			'select bytes from trace_chunks where session_id = $1 and name = $2 order by "offset"',
			[sessionId, name],
		);
		return Buffer.concat(result.rows.map((row) => row.bytes));
	}

	async deleteSession(sessionId: string): Promise<void> {
		await this.pool.query("delete from trace_chunks where session_id = $1", [sessionId]);
	}

	/** What this process knew of the Session's Trace in the database (it was deleted, here or elsewhere). */
	forget(sessionId: string): void {
		this.diverged.delete(sessionId);
		for (const key of [...this.stored.keys()]) if (key.startsWith(`${sessionId}/`)) this.stored.delete(key);
	}

	private async storedSize(sessionId: string, name: string): Promise<number> {
		const result = await this.pool.query<{ size: number | null }>(
			'select max("offset" + length(bytes)) as size from trace_chunks where session_id = $1 and name = $2',
			[sessionId, name],
		);
		return result.rows[0]?.size ?? 0;
	}
}

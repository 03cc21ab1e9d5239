import {
	closeSync,
	existsSync,
	mkdirSync,
	openSync,
	readdirSync,
	readFileSync,
	readSync,
	statSync,
	truncateSync,
	writeFileSync,
	writeSync,
} from "node:fs";
import { join } from "node:path";
import {
	latestTraceNumber,
	PRIVATE_DIR_MODE,
	PRIVATE_FILE_MODE,
	readTrace,
	sessionDir,
	traceFileName,
} from "@omniloop/core";
import type pg from "pg";

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
	) {}

	/**
	 * Sessions whose Trace another process wrote on in the database while this one still had
	 * lines to upload: nothing more of this copy goes up (its bytes would not line up) until a
	 * claim downloads the database's copy again.
	 */
	private readonly diverged = new Set<string>();

	/** Appends to the database what the Session's files here gained since the last upload. */
	async upload(sessionId: string): Promise<void> {
		const dir = sessionDir(this.home, sessionId);
		if (!existsSync(dir) || this.diverged.has(sessionId)) return;
		for (const name of readdirSync(dir)
			.filter((n) => TRACE_FILE.test(n))
			.sort()) {
			const key = `${sessionId}/${name}`;
			const from = this.stored.get(key) ?? (await this.storedSize(sessionId, name));
			const bytes = wholeLinesFrom(join(dir, name), from);
			if (bytes.length === 0) {
				this.stored.set(key, from);
				continue;
			}
			const inserted = await this.pool.query(
				'insert into trace_chunks (session_id, name, "offset", bytes) values ($1, $2, $3, $4) on conflict do nothing',
				[sessionId, name, from, bytes],
			);
			if (inserted.rowCount === 0) {
				// Another process wrote there first: this one had lost the Session.
				this.stored.delete(key);
				this.diverged.add(sessionId);
				throw new Error(
					`session ${sessionId}: another process wrote its Trace (${name}) in the database; this copy stays here`,
				);
			}
			this.stored.set(key, from + bytes.length);
		}
	}

	/**
	 * Before a Task here: the files here get what the database has beyond them. Then, if the
	 * event log holds seqs past the Trace's last reservation (a process died before uploading its
	 * latest lines), a reservation up to them is appended, so no seq is handed out twice.
	 */
	async download(sessionId: string, lastSeq: number): Promise<void> {
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
		if (!existsSync(dir) || latestTraceNumber(dir) === 0) return;
		const latest = join(dir, traceFileName(latestTraceNumber(dir)));
		const trace = readTrace(latest);
		const known = Math.max(trace.seqReserved ?? 0, trace.messages.at(-1)?.seq ?? 0);
		if (lastSeq > known)
			appendBytes(latest, Buffer.from(`${JSON.stringify({ type: "seq_reserved", upTo: lastSeq })}\n`));
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

/** The file's bytes from `from` up to its last newline (a line being written is not taken yet). */
function wholeLinesFrom(path: string, from: number): Buffer {
	const size = statSync(path).size;
	if (size <= from) return Buffer.alloc(0);
	const buffer = Buffer.alloc(size - from);
	const fd = openSync(path, "r");
	try {
		readSync(fd, buffer, 0, buffer.length, from);
	} finally {
		closeSync(fd);
	}
	return buffer.subarray(0, buffer.lastIndexOf(0x0a) + 1);
}

/** Whether the chunks follow each other from exactly `from` on (none at all is nothing new). */
function contiguousFrom(chunks: readonly { offset: number; bytes: Buffer }[], from: number): boolean {
	let at = from;
	for (const chunk of chunks) {
		if (chunk.offset !== at) return false;
		at += chunk.bytes.length;
	}
	return true;
}

/** Whether the file here still holds the `size` bytes it shares with the database. */
function holds(path: string, size: number): boolean {
	const here = statSync(path, { throwIfNoEntry: false });
	return here !== undefined && here.size >= size;
}

/** Makes the file its first `from` bytes followed by `tail` (nothing is written when it is that already). */
function replaceFrom(path: string, from: number, tail: Buffer): void {
	const here = statSync(path, { throwIfNoEntry: false });
	if (from === 0) {
		// The same size is not the same bytes (a stale line as long as the database's).
		if (here?.size !== tail.length || !readFileSync(path).equals(tail))
			writeFileSync(path, tail, { mode: PRIVATE_FILE_MODE });
		return;
	}
	if (here?.size === from + tail.length && tail.length === 0) return;
	truncateSync(path, from);
	if (tail.length > 0) appendBytes(path, tail);
}

function appendBytes(path: string, bytes: Buffer): void {
	const fd = openSync(path, "a", PRIVATE_FILE_MODE);
	try {
		writeSync(fd, bytes);
	} finally {
		closeSync(fd);
	}
}

import {
	closeSync,
	existsSync,
	mkdirSync,
	openSync,
	readdirSync,
	readSync,
	statSync,
	writeFileSync,
	writeSync,
} from "node:fs";
import { join } from "node:path";
import { latestTraceNumber, readTrace, sessionDir, traceFileName } from "@omniloop/core";
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

	/** Appends to the database what the Session's files here gained since the last upload. */
	async upload(sessionId: string): Promise<void> {
		const dir = sessionDir(this.home, sessionId);
		if (!existsSync(dir)) return;
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
			await this.pool.query(
				'insert into trace_chunks (session_id, name, "offset", bytes) values ($1, $2, $3, $4) on conflict do nothing',
				[sessionId, name, from, bytes],
			);
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
		const result = await this.pool.query<{ name: string; offset: number; bytes: Buffer }>(
			'select name, "offset", bytes from trace_chunks where session_id = $1 order by name, "offset"',
			[sessionId],
		);
		const files = new Map<string, Buffer[]>();
		for (const row of result.rows) files.set(row.name, [...(files.get(row.name) ?? []), row.bytes]);
		for (const [name, chunks] of files) {
			mkdirSync(dir, { recursive: true });
			const path = join(dir, name);
			const content = Buffer.concat(chunks);
			this.stored.set(`${sessionId}/${name}`, content.length);
			// The database's copy is the Trace: a copy here that differs (behind, or with lines a
			// stale Session wrote when it closed) is replaced by it.
			if (existsSync(path) && statSync(path).size === content.length) continue;
			writeFileSync(path, content);
		}
		if (!existsSync(dir) || latestTraceNumber(dir) === 0) return;
		const latest = join(dir, traceFileName(latestTraceNumber(dir)));
		const trace = readTrace(latest);
		const known = Math.max(trace.seqReserved ?? 0, trace.messages.at(-1)?.seq ?? 0);
		if (lastSeq > known)
			appendBytes(latest, Buffer.from(`${JSON.stringify({ type: "seq_reserved", upTo: lastSeq })}\n`));
	}

	async deleteSession(sessionId: string): Promise<void> {
		for (const key of [...this.stored.keys()]) if (key.startsWith(`${sessionId}/`)) this.stored.delete(key);
		await this.pool.query("delete from trace_chunks where session_id = $1", [sessionId]);
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

function appendBytes(path: string, bytes: Buffer): void {
	const fd = openSync(path, "a");
	try {
		writeSync(fd, bytes);
	} finally {
		closeSync(fd);
	}
}

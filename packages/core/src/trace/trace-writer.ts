import { closeSync, fsyncSync, openSync, readFileSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { OmniMessage } from "../messages/omni-message.js";
import { makePrivateDir, PRIVATE_FILE_MODE } from "./private-files.js";
import type { SeqReservation } from "./seq-reservation.js";
import type { TraceHeader } from "./trace-header.js";

/**
 * Appends a Session's messages to one Trace file, one JSON object a line.
 *
 * Lines are buffered and written whole by `flush`, in one write, so a crash can at worst tear the
 * last line (which the reader ignores). The engine flushes at every turn boundary, before it
 * waits on a person, before tools start (write-ahead: a resume never runs a call that may have
 * run) and with each seq reservation. The caller decides what goes in: model messages, events and
 * seq reservations, never partials and never carry-over.
 */
export class TraceWriter {
	private fd: number | undefined;
	/** Lines not yet written, each ending in a newline (one string: a flush is one write, no join). */
	private pending = "";
	/** Bytes of a flush that failed part way; the next flush writes them first. */
	private unwritten: Buffer | undefined;

	private constructor(
		readonly path: string,
		fd: number | undefined,
		private readonly durable: boolean,
	) {
		this.fd = fd;
	}

	/**
	 * Starts a new Trace file with its header line, written at once — or, with `withFirstLines`,
	 * in one write with the lines that follow it (a compaction's fresh context: a crash never
	 * leaves a header without them). Fails if the file exists.
	 */
	static create(
		path: string,
		header: TraceHeader,
		options: { durable?: boolean; enabled?: boolean; withFirstLines?: boolean } = {},
	): TraceWriter {
		if (options.enabled === false) return new TraceWriter(path, undefined, false);
		makePrivateDir(dirname(path));
		const writer = new TraceWriter(path, openSync(path, "wx", PRIVATE_FILE_MODE), options.durable ?? false);
		writer.pending = `${JSON.stringify(header)}\n`;
		if (options.withFirstLines !== true) writer.flush();
		return writer;
	}

	/**
	 * Appends to an existing Trace file (a resumed Session). A torn last line is first moved out
	 * to `<path>.torn-<time>`, so new lines never glue onto it and its bytes are kept.
	 */
	static append(path: string, options: { durable?: boolean } = {}): TraceWriter {
		const bytes = readFileSync(path);
		if (bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a) {
			const keep = bytes.lastIndexOf(0x0a) + 1;
			writeFileSync(`${path}.torn-${Date.now()}`, bytes.subarray(keep), { mode: PRIVATE_FILE_MODE });
			truncateSync(path, keep);
		}
		return new TraceWriter(path, openSync(path, "a"), options.durable ?? false);
	}

	write(message: OmniMessage): void {
		if (this.fd !== undefined) this.pending += `${JSON.stringify(message)}\n`;
	}

	/** Records that seq numbers up to `upTo` may be handed out, and flushes: past a crash before any is used. */
	reserveSeq(upTo: number): void {
		if (this.fd === undefined) return;
		const record: SeqReservation = { type: "seq_reserved", upTo };
		this.pending += `${JSON.stringify(record)}\n`;
		this.flush();
	}

	/** Writes every buffered line. With `durable`, also asks the OS to put them on the disk. */
	flush(): void {
		if (this.fd === undefined) return;
		if (this.unwritten !== undefined) this.writeUnwritten();
		if (this.pending !== "") {
			const text = this.pending;
			this.pending = "";
			// A string goes to the file without a Buffer made for it; only a failed write needs its bytes.
			let written: number;
			try {
				written = writeSync(this.fd, text);
			} catch (error) {
				this.unwritten = Buffer.from(text);
				throw error;
			}
			if (written < Buffer.byteLength(text)) {
				this.unwritten = Buffer.from(text).subarray(written);
				this.writeUnwritten();
			}
		}
		if (this.durable) fsyncSync(this.fd);
	}

	/** A failed write (disk full) keeps what was not written, so the next flush goes on from there. */
	private writeUnwritten(): void {
		while (this.unwritten !== undefined) {
			const written = writeSync(this.fd as number, this.unwritten);
			this.unwritten = written >= this.unwritten.length ? undefined : this.unwritten.subarray(written);
		}
	}

	close(): void {
		if (this.fd === undefined) return;
		this.flush();
		closeSync(this.fd);
		this.fd = undefined;
	}
}

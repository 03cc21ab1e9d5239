import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import type { OmniMessage } from "../messages/omni-message.js";
import { isSeqReservation } from "./seq-reservation.js";
import type { TraceHeader } from "./trace-header.js";

export class TraceFormatError extends Error {
	override readonly name = "TraceFormatError";
	constructor(
		readonly path: string,
		readonly line: number,
		problem: string,
	) {
		super(`${path}:${line}: ${problem}`);
	}
}

export interface TraceContents {
	header: TraceHeader;
	messages: OmniMessage[];
	/** True when the last line was cut off (a crash mid-write) and was left out. */
	tornLastLine: boolean;
	/** The last seq reservation in the file, the header's included; undefined in Traces older than reservations. */
	seqReserved: number | undefined;
}

/**
 * Reads a Trace file. A torn last line — no newline at its end, or not valid JSON — is ignored;
 * a bad line anywhere else is a TraceFormatError naming the file and line.
 */
export function readTrace(path: string): TraceContents {
	const text = readFileSync(path, "utf8");
	const lines = text.split("\n");
	// A complete file ends with "\n", so the last element is "" — or a torn line.
	const last = lines.pop() ?? "";
	let tornLastLine = last !== "";
	const records: unknown[] = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] as string;
		if (line === "") continue;
		try {
			records.push(JSON.parse(line));
		} catch (error) {
			if (i === lines.length - 1 && last === "") {
				tornLastLine = true;
				break;
			}
			throw new TraceFormatError(path, i + 1, `not valid JSON (${(error as Error).message})`);
		}
	}
	const [header, ...rest] = records;
	if (!isHeader(header)) throw new TraceFormatError(path, 1, "the first line is not a trace_header");
	let seqReserved = header.seqReserved;
	const messages: OmniMessage[] = [];
	for (let i = 0; i < rest.length; i++) {
		const record = rest[i] as { type?: unknown; seq?: unknown; upTo?: unknown };
		if (typeof record === "object" && record !== null && isSeqReservation(record)) {
			if (typeof record.upTo !== "number")
				throw new TraceFormatError(path, i + 2, "a seq_reserved needs a number `upTo`");
			seqReserved = record.upTo;
			continue;
		}
		if (typeof record?.type !== "string" || typeof record.seq !== "number") {
			throw new TraceFormatError(path, i + 2, "a message needs a string `type` and a number `seq`");
		}
		messages.push(record as OmniMessage);
	}
	return { header, messages, tornLastLine, seqReserved };
}

/**
 * A Trace file's first line without the rest of the file (a header is a few hundred bytes):
 * undefined when it is not complete (a file a crash left unbegun).
 */
export function readFirstLine(path: string): string | undefined {
	const fd = openSync(path, "r");
	try {
		const start = Buffer.alloc(HEADER_MAX);
		const read = start.subarray(0, readSync(fd, start, 0, HEADER_MAX, 0));
		const end = read.indexOf(0x0a);
		return end === -1 ? undefined : read.subarray(0, end).toString("utf8");
	} finally {
		closeSync(fd);
	}
}

/** A Trace file's header alone; undefined for a file not begun. A header that is not one is a TraceFormatError. */
export function readTraceHeader(path: string): TraceHeader | undefined {
	const line = readFirstLine(path);
	if (line === undefined) return undefined;
	let header: unknown;
	try {
		header = JSON.parse(line);
	} catch (error) {
		throw new TraceFormatError(path, 1, `not valid JSON (${(error as Error).message})`);
	}
	if (!isHeader(header)) throw new TraceFormatError(path, 1, "the first line is not a trace_header");
	return header;
}

/** More than any header line takes. */
const HEADER_MAX = 64 * 1024;

function isHeader(value: unknown): value is TraceHeader {
	return typeof value === "object" && value !== null && (value as { type?: unknown }).type === "trace_header";
}

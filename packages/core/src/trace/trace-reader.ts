import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import type { OmniMessage } from "../messages/omni-message.js";
import { withSteerField } from "../messages/steer.js";
import { isSeqReservation } from "./seq-reservation.js";
import type { TraceHeader } from "./trace-header.js";

/** A Trace file cannot be read as one (its header is not one): names the file and the line. */
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

/** A line in the middle of a Trace that is not a record (a disk error, a hand edit): left out of what is read. */
export interface DamagedLine {
	/** 1-based. */
	line: number;
	problem: string;
}

export interface TraceContents {
	header: TraceHeader;
	messages: OmniMessage[];
	/** True when the last line was cut off (a crash mid-write) and was left out. */
	tornLastLine: boolean;
	/** Lines after the header that are not records, left out; a resume moves them aside (trace-repair.ts). */
	damagedLines: DamagedLine[];
	/** The last seq reservation in the file, the header's included; undefined in Traces older than reservations. */
	seqReserved: number | undefined;
}

/**
 * Reads a Trace file. A torn last line — no newline at its end, or not valid JSON — is ignored;
 * so is a damaged line elsewhere (listed in `damagedLines`: one bad line must not cost the
 * Session). Only a header that is not one is a TraceFormatError naming the file and line.
 */
export function readTrace(path: string): TraceContents {
	const text = readFileSync(path, "utf8");
	const lines = text.split("\n");
	// A complete file ends with "\n", so the last element is "" — or a torn line.
	const last = lines.pop() ?? "";
	let tornLastLine = last !== "";
	const records: { line: number; record: unknown }[] = [];
	const damagedLines: DamagedLine[] = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] as string;
		// Blank: a damaged line a resume moved aside (trace-repair.ts) leaves spaces.
		if (line.trim() === "") continue;
		try {
			records.push({ line: i + 1, record: JSON.parse(line) });
		} catch (error) {
			if (i === lines.length - 1 && last === "") {
				tornLastLine = true;
				break;
			}
			if (i === 0) throw new TraceFormatError(path, 1, `not valid JSON (${(error as Error).message})`);
			damagedLines.push({ line: i + 1, problem: `not valid JSON (${(error as Error).message})` });
		}
	}
	const [first, ...rest] = records;
	const header = first?.line === 1 ? first.record : undefined;
	if (!isHeader(header)) throw new TraceFormatError(path, 1, "the first line is not a trace_header");
	let seqReserved = header.seqReserved;
	const messages: OmniMessage[] = [];
	for (const { line, record: value } of rest) {
		const record = value as { type?: unknown; seq?: unknown; upTo?: unknown };
		if (typeof record === "object" && record !== null && isSeqReservation(record)) {
			if (typeof record.upTo === "number") seqReserved = record.upTo;
			else damagedLines.push({ line, problem: "a seq_reserved needs a number `upTo`" });
			continue;
		}
		if (typeof record?.type !== "string" || typeof record.seq !== "number") {
			damagedLines.push({ line, problem: "a message needs a string `type` and a number `seq`" });
			continue;
		}
		messages.push(withSteerField(record as OmniMessage));
	}
	damagedLines.sort((a, b) => a.line - b.line);
	return { header, messages, tornLastLine, damagedLines, seqReserved };
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

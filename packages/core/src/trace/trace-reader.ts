import { readFileSync } from "node:fs";
import type { OmniMessage } from "../messages/omni-message.js";
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
	const [header, ...messages] = records;
	if (!isHeader(header)) throw new TraceFormatError(path, 1, "the first line is not a trace_header");
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as { type?: unknown; seq?: unknown };
		if (typeof message?.type !== "string" || typeof message.seq !== "number") {
			throw new TraceFormatError(path, i + 2, "a message needs a string `type` and a number `seq`");
		}
	}
	return { header, messages: messages as OmniMessage[], tornLastLine };
}

function isHeader(value: unknown): value is TraceHeader {
	return typeof value === "object" && value !== null && (value as { type?: unknown }).type === "trace_header";
}

import { readdirSync } from "node:fs";
import { join } from "node:path";

/** A Session's folder under the omniloop home. */
export function sessionDir(home: string, sessionId: string): string {
	return join(home, "sessions", sessionId);
}

/** The n-th Trace file of a Session: `trace.jsonl`, then `trace_002.jsonl`, `trace_003.jsonl`, … */
export function traceFileName(n: number): string {
	if (!Number.isInteger(n) || n < 1) throw new RangeError(`trace file number must be a positive integer, got ${n}`);
	return n === 1 ? "trace.jsonl" : `trace_${String(n).padStart(3, "0")}.jsonl`;
}

const TRACE_FILE = /^trace(?:_(\d{3,}))?\.jsonl$/;

/** The number of the newest Trace file in `dir`, or 0 when there is none. */
export function latestTraceNumber(dir: string): number {
	let latest = 0;
	for (const name of readdirSync(dir)) {
		const match = TRACE_FILE.exec(name);
		if (match === null) continue;
		const n = match[1] === undefined ? 1 : Number(match[1]);
		if (n > latest) latest = n;
	}
	return latest;
}

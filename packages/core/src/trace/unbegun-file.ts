import { readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { latestTraceNumber, traceFileName } from "./trace-files.js";

/**
 * The newest Trace file a resume can read, in `dir`: 0 when there is none. A compaction creates
 * its new file and writes the header with the fresh context in one write; a crash between the
 * two leaves a file with no complete line. That file is moved aside (`<name>.torn-<time>`, its
 * bytes kept) and the one before it is used: the compaction is lost, the context before it is not.
 */
export function latestReadableTrace(dir: string): number {
	let latest = latestTraceNumber(dir);
	while (latest > 1) {
		const path = join(dir, traceFileName(latest));
		if (readFileSync(path).includes(0x0a)) break;
		renameSync(path, `${path}.torn-${Date.now()}`);
		latest--;
	}
	return latest;
}

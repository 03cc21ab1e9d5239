import { renameSync } from "node:fs";
import { join } from "node:path";
import { latestTraceNumber, traceFileName } from "./trace-files.js";
import { readFirstLine } from "./trace-reader.js";

/**
 * The newest Trace file in `dir` that was begun (holds a complete line): 0 when there is none. A
 * compaction creates its new file and writes the header with the fresh context in one write; a
 * crash between the two leaves a file with no complete line, which readers pass over.
 */
export function newestBegunTrace(dir: string): number {
	let latest = latestTraceNumber(dir);
	while (latest > 1 && !begun(dir, latest)) latest--;
	return latest;
}

/**
 * `newestBegunTrace`, for a resume that goes on writing: a newer file that was never begun is
 * moved aside (`<name>.torn-<time>`, its bytes kept), so the next compaction can create it anew.
 * The compaction is lost; the context before it is not.
 */
export function latestReadableTrace(dir: string): number {
	const readable = newestBegunTrace(dir);
	for (let n = latestTraceNumber(dir); n > readable; n--) {
		const path = join(dir, traceFileName(n));
		renameSync(path, `${path}.torn-${Date.now()}`);
	}
	return readable;
}

/** Whether the file's first line (its header) is complete: only its start is read. */
function begun(dir: string, n: number): boolean {
	return readFirstLine(join(dir, traceFileName(n))) !== undefined;
}

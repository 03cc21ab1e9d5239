import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import type { DamagedLine } from "./trace-reader.js";

/**
 * Moves a Trace's damaged lines aside before a resume writes on: their bytes go to
 * `<path>.damaged-<time>` (kept, as a torn last line is kept in `.torn-<time>`), then each is
 * blanked in place — spaces, the same length, so every byte offset stays where it was (a copy of
 * the file elsewhere, shipped by offset, still lines up) and readers pass the line over.
 * Returns the file they went to, or undefined when there were none.
 */
export function moveAsideDamagedLines(path: string, damaged: readonly DamagedLine[]): string | undefined {
	if (damaged.length === 0) return undefined;
	const wanted = new Set(damaged.map((d) => d.line));
	const bytes = readFileSync(path);
	const spans: { start: number; end: number }[] = [];
	for (let start = 0, line = 1; start < bytes.length; line++) {
		const end = bytes.indexOf(0x0a, start);
		// A torn last line is TraceWriter.append's to move.
		if (end === -1) break;
		if (wanted.has(line)) spans.push({ start, end });
		start = end + 1;
	}
	if (spans.length === 0) return undefined;
	const aside = `${path}.damaged-${Date.now()}`;
	// The bytes are kept before any is blanked: a crash in between loses nothing.
	writeFileSync(aside, Buffer.concat(spans.map(({ start, end }) => bytes.subarray(start, end + 1))));
	const fd = openSync(path, "r+");
	try {
		for (const { start, end } of spans) writeSync(fd, Buffer.alloc(end - start, 0x20), 0, end - start, start);
	} finally {
		closeSync(fd);
	}
	return aside;
}

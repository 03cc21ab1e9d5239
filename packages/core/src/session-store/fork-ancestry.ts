import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { traceFileName } from "../trace/trace-files.js";
import { readTrace, readTraceHeader } from "../trace/trace-reader.js";

/** Deeper than any chain of forks a person makes; a chain that loops (a damaged header) stops too. */
const MOST_ANCESTORS = 64;

/**
 * The folders of the Sessions the Session in `sessionDir` was forked from, nearest first: its
 * first Trace file's header names its parent (`parent`), the parent's its own, and so on, as far
 * as they are still on the home. A fork's history carries its ancestors' messages, notes that
 * name files in their folders among them (a cut tool output's). Empty for a Session that is no
 * fork, and past a folder that is gone or a header that cannot be read.
 */
export function forkAncestorDirs(sessionDir: string): string[] {
	const sessions = dirname(sessionDir);
	const dirs: string[] = [];
	const seen = new Set([sessionDir]);
	let dir = sessionDir;
	while (dirs.length < MOST_ANCESTORS) {
		const parent = parentOf(dir);
		if (parent === undefined) break;
		const parentDir = join(sessions, parent);
		if (seen.has(parentDir) || !existsSync(parentDir)) break;
		seen.add(parentDir);
		dirs.push(parentDir);
		dir = parentDir;
	}
	return dirs;
}

/**
 * Whether a tool output of the history a fork inherited holds `text` (a cut output's note naming
 * where its full text was saved). The inherited history is the first lines of the fork's first
 * Trace file (a fork's history is seeded there), so only that file is read; a tool output, not
 * any mention: the call that asks to read a file names it too. Read each time: asked only when a
 * tool reads a file in another Session's folder.
 */
export function inheritedOutputsHold(sessionDir: string, text: string): boolean {
	try {
		return readTrace(join(sessionDir, traceFileName(1))).messages.some(
			(message) => message.type === "tool_call_output" && message.output.includes(text),
		);
	} catch {
		// A first file that cannot be read holds nothing.
		return false;
	}
}

function parentOf(dir: string): string | undefined {
	try {
		const parent = readTraceHeader(join(dir, traceFileName(1)))?.parent?.sessionId;
		// A Session id is a folder's name, never a path (nor empty, nor `.` or `..`).
		return parent === undefined || parent === "" || basename(parent) !== parent || parent.startsWith(".")
			? undefined
			: parent;
	} catch {
		return undefined;
	}
}

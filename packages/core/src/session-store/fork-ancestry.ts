import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { traceFileName } from "../trace/trace-files.js";
import { readTraceHeader } from "../trace/trace-reader.js";

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

function parentOf(dir: string): string | undefined {
	try {
		const parent = readTraceHeader(join(dir, traceFileName(1)))?.parent?.sessionId;
		// A Session id is a folder's name, never a path.
		return parent === undefined || parent.includes("/") || parent.includes("\\") || parent.startsWith(".")
			? undefined
			: parent;
	} catch {
		return undefined;
	}
}

import { existsSync, readdirSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { OmniMessage } from "../messages/omni-message.js";
import { latestTraceNumber, sessionDir, traceFileName } from "../trace/trace-files.js";
import type { TraceHeader } from "../trace/trace-header.js";
import {
	type DamageSeen,
	highestSeq,
	messagesAfter,
	type TraceFileContents,
	traceFiles,
} from "../trace/trace-history.js";
import { readTraceHeader } from "../trace/trace-reader.js";
import { newestBegunTrace } from "../trace/unbegun-file.js";
import { listSessions, type SessionSummary, saveTitle } from "./session-index.js";

/** A file of damaged Trace lines a resume moved aside (trace-repair.ts): `<trace file>.damaged-<time>`. */
export interface MovedAsideLines {
	/** The Trace file the lines came from: `trace.jsonl`, `trace_002.jsonl`, … */
	file: string;
	/** The file beside it that holds their bytes. */
	movedTo: string;
}

const MOVED_ASIDE = /^(trace(?:_\d{3,})?\.jsonl)\.damaged-\d+$/;

/**
 * The Sessions kept under an omniloop home, read and removed the way hosts need them, so that no
 * host knows how a Session's folder is laid out (Trace files, rotation, titles; docs/architecture.md,
 * "Trace"). Reads are synchronous and from disk each time: a Trace is appended to by its Session
 * while hosts read it.
 */
export class SessionStore {
	constructor(readonly home: string) {}

	/** The Session's folder, for a host's own files kept beside its Trace (never to read the Trace). */
	folder(sessionId: string): string {
		return sessionDir(this.home, sessionId);
	}

	/** True when the Session has at least one Trace file. */
	has(sessionId: string): boolean {
		const dir = this.folder(sessionId);
		return existsSync(dir) && latestTraceNumber(dir) > 0;
	}

	/**
	 * The Session's messages after seq `after` (0: all), in order, across its Trace files; no
	 * partials (a Trace has none). A damaged line is left out, and told to `onDamage` per file read.
	 */
	history(sessionId: string, { after = 0, onDamage }: { after?: number; onDamage?: DamageSeen } = {}): OmniMessage[] {
		return messagesAfter(this.folder(sessionId), after, onDamage);
	}

	/** Each Trace file of the Session, oldest first: a compaction begins a new one. */
	traceFiles(sessionId: string): TraceFileContents[] {
		return traceFiles(this.folder(sessionId));
	}

	/** The Session's highest seq on disk; 0 when it has none. */
	lastSeq(sessionId: string): number {
		return highestSeq(this.folder(sessionId));
	}

	/** The header of the Session's latest Trace file (its model, instructions, …); undefined when it has none. */
	latestHeader(sessionId: string): TraceHeader | undefined {
		const dir = this.folder(sessionId);
		if (!existsSync(dir)) return undefined;
		const latest = newestBegunTrace(dir);
		return latest === 0 ? undefined : readTraceHeader(join(dir, traceFileName(latest)));
	}

	/** Every Session, newest first; a folder whose Trace cannot be read is left out. */
	list(): SessionSummary[] {
		return listSessions(this.home);
	}

	/** Keeps the Session's title beside its Trace (a title is not part of the conversation). */
	saveTitle(sessionId: string, title: string): void {
		saveTitle(this.home, sessionId, title);
	}

	/** The files of damaged lines a resume of the Session moved aside, by name. */
	movedAside(sessionId: string): MovedAsideLines[] {
		const dir = this.folder(sessionId);
		if (!existsSync(dir)) return [];
		const moved: MovedAsideLines[] = [];
		for (const name of readdirSync(dir).sort()) {
			const file = MOVED_ASIDE.exec(name)?.[1];
			if (file !== undefined) moved.push({ file, movedTo: name });
		}
		return moved;
	}

	/** Removes the Session and everything kept beside its Trace; a Session already gone is no error. */
	async delete(sessionId: string): Promise<void> {
		await rm(this.folder(sessionId), { recursive: true, force: true });
	}

	/** `delete`, synchronously: for a host on its way out of the process (a Ctrl-C exit). */
	deleteSync(sessionId: string): void {
		rmSync(this.folder(sessionId), { recursive: true, force: true });
	}
}

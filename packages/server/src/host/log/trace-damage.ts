import type { DamagedLine, SessionStore } from "@omniloop/core";

/** A damaged line of a Session's Trace (README, "The Runtime Server"): left out of the history. */
export interface TraceDamage {
	/** The Trace file: `trace.jsonl`, `trace_002.jsonl`, … */
	file: string;
	/** Still in the file (1-based): it is moved aside when a Task next resumes the Session. */
	line?: number;
	/** Already moved aside, into this file beside the Trace (its bytes kept). */
	movedTo?: string;
	problem: string;
}

/**
 * What the reads of a Session's Trace found damaged, so that the history can say so: the lines
 * still in its files, as last read, and the files a resume moved damaged lines into. A line seen
 * for the first time is reported once (`found`: the server log).
 */
export class TraceDamageLog {
	private readonly inPlace = new Map<string, readonly DamagedLine[]>();
	private readonly reported = new Set<string>();
	found: (damage: TraceDamage) => void = () => {};

	constructor(
		private readonly sessions: SessionStore,
		private readonly sessionId: string,
	) {}

	/** What a read of `file` found: it replaces what an earlier read of that file found. */
	readonly seen = (file: string, lines: readonly DamagedLine[]): void => {
		if (lines.length === 0) this.inPlace.delete(file);
		else this.inPlace.set(file, lines);
		for (const { line, problem } of lines) {
			const key = `${file}:${line}`;
			if (this.reported.has(key)) continue;
			this.reported.add(key);
			this.found({ file, line, problem });
		}
	};

	/** A resume moved the lines in place aside: until the files are read again, none is known. */
	movedAside(): void {
		this.inPlace.clear();
	}

	list(): TraceDamage[] {
		const damage: TraceDamage[] = [];
		for (const [file, lines] of this.inPlace)
			for (const { line, problem } of lines) damage.push({ file, line, problem });
		for (const { file, movedTo } of this.sessions.movedAside(this.sessionId))
			damage.push({ file, movedTo, problem: "damaged lines, moved aside by a resume" });
		return damage;
	}
}

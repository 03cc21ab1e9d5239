import type { InstructionFileInfo, Usage } from "../messages/omni-message.js";

/**
 * The first line of every Trace file. A file begun by a compaction may hold no `token_usage`
 * (and, after a discard, no message at all) yet: its header carries what a resume needs from the
 * files before it. Both of those fields are absent in Traces written before they existed.
 */
export interface TraceHeader {
	type: "trace_header";
	version: 1;
	sessionId: string;
	agentId: string;
	/** Which file of the Session this is: 1 for `trace.jsonl`, 2 for `trace_002.jsonl`, … */
	file: number;
	createdAt: string;
	/** When the Session itself was made (its first file's `createdAt`); absent in older Traces. */
	sessionCreatedAt?: string;
	workspaceDir: string;
	/** The model the Session was made with ("provider:model"). */
	model: string;
	/** The name of that model in `omniloop.yaml` ("default" for the key-only default): resumed with today's credentials. */
	modelRef?: string;
	/** Turns the Session had made before this file began (they count toward `maxSessionTurns`). */
	turnsBefore: number;
	/** The Session's usage when this file began (the last `token_usage.session` before it). */
	usageBefore?: Usage;
	/** Every seq up to this may have been handed out when this file began (see SeqReservation). */
	seqReserved?: number;
	/** This file began in the middle of a Task (an automatic compaction): until a `done`, that Task is not over. */
	openTask?: boolean;
	/** With `openTask`: the turns and tokens that Task had made before this file (absent in older Traces). */
	taskBefore?: TaskSoFar;
	/** The project instructions in the system prompt when this file began (absent in older Traces: none). */
	instructions?: { files: InstructionFileInfo[]; text: string };
	/** Where the host said the AGENTS.md walk starts (its workspace root); absent: the enclosing git repository's top. */
	workspaceRoot?: string;
	/** A forked Session's origin: the Session and the seq of the person's message it was forked before. */
	parent?: { sessionId: string; seq: number };
}

/** What a Task has made so far: its turns (toward max_turns) and its tokens (toward `done.usage`). */
export interface TaskSoFar {
	turns: number;
	usage: Usage;
}

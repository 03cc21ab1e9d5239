/** The first line of every Trace file. */
export interface TraceHeader {
	type: "trace_header";
	version: 1;
	sessionId: string;
	agentId: string;
	/** Which file of the Session this is: 1 for `trace.jsonl`, 2 for `trace_002.jsonl`, … */
	file: number;
	createdAt: string;
	workspaceDir: string;
	/** The model reference fixed when the Session was made. */
	model: string;
	/** Turns the Session had made before this file began (they count toward `maxSessionTurns`). */
	turnsBefore: number;
}

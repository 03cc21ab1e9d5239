/** The first line of every Trace file. */
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
}

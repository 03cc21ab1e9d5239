import { addUsage, emptyUsage, toolCallOutput } from "../../messages/constructors.js";
import type { OmniMessage, ToolCall, ToolCallOutput } from "../../messages/omni-message.js";
import type { DecidedBy } from "../../tools/tool.js";
import type { TaskSoFar } from "../../trace/trace-header.js";

/** What a crash left of a call that had started: the model must not assume it did nothing, nor that it finished. */
export const CRASHED_WHILE_RUNNING =
	"[interrupted: the tool was interrupted by a crash or restart of the session while it ran; it may have partly run. It will not be run again: check its effects before retrying]";
/** A call the Trace shows never started (no tool_start was written ahead of it). */
export const CRASHED_BEFORE_START =
	"[interrupted: a crash or restart ended the session before this tool call started; it did not run]";

/** What the Trace holds of one call of an unfinished turn. */
export interface CallRecord {
	output?: ToolCallOutput;
	decision?: { decision: "allow" | "deny"; by: DecidedBy; correlationId?: string };
	/** The person was asked (`confirmation_required`) and had not answered. */
	confirmation?: PendingConfirmation;
	/** A tool_start was written: the tool may have run, so it never runs again. */
	started: boolean;
}

/** A call that waits on a person, as hosts list it. */
export interface PendingConfirmation {
	correlationId: string;
	callId: string;
	name: string;
	arguments: string;
	/** The `ts` of its `confirmation_required`. */
	requestedAt: number;
}

/**
 * The last turn of a Task that a crash or restart cut off (no `done` followed it), as its Trace
 * file shows it.
 *
 * `batch`: the model's output had completed (its request ended ok), so its calls are committed
 * and the Task can go on exactly where it stopped: finished outputs stay, calls that had started
 * get an interrupted output, decided calls are carried out, and calls that waited on a person
 * are asked again with the same correlation id. `stream`: the output was cut off; the turn can
 * only be redone.
 */
export interface UnfinishedTurn {
	kind: "batch" | "stream";
	/** The turn's calls, in call order. */
	calls: ToolCall[];
	records: Map<string, CallRecord>;
	/** What the cut-off Task had done before (this file's part, and the header's from before it): it counts toward max_turns and `done.usage`. */
	taskSoFar: TaskSoFar;
}

/** The outputs the turn's calls get when the Task is not continued: what finished, else a placeholder. */
export function placeholderOutputs(turn: UnfinishedTurn): ToolCallOutput[] {
	return turn.calls.map((call) => {
		const record = turn.records.get(call.callId);
		return record?.output ?? crashOutput(call, record?.started ?? false);
	});
}

export function crashOutput(call: ToolCall, started: boolean): ToolCallOutput {
	return toolCallOutput(call, started ? CRASHED_WHILE_RUNNING : CRASHED_BEFORE_START, "interrupted");
}

/** The pending confirmations of an unfinished turn, in call order. */
export function pendingConfirmations(turn: UnfinishedTurn): PendingConfirmation[] {
	return turn.calls.flatMap((call) => {
		const record = turn.records.get(call.callId);
		return record?.confirmation !== undefined && record.decision === undefined && record.output === undefined
			? [record.confirmation]
			: [];
	});
}

/**
 * Finds the unfinished last turn of a Trace file's messages: the last turn request of a Task
 * with no `done` after it. Undefined when the last Task ended (or had only its `done` left).
 */
export function findUnfinishedTurn(
	messages: readonly OmniMessage[],
	/** The file began in the middle of a Task (its header's `openTask`), which had made this much before it. */
	openAtStart?: TaskSoFar,
): UnfinishedTurn | undefined {
	let start = -1;
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as OmniMessage;
		if (message.type === "done") return undefined;
		if (isTurnStart(message)) {
			start = i;
			break;
		}
	}
	// A Task that an automatic compaction moved into this file, cut off before its next request:
	// it goes on from its next request (no calls to carry on).
	if (start < 0) {
		return openAtStart === undefined
			? undefined
			: { kind: "batch", calls: [], records: new Map(), taskSoFar: taskSince(messages, openAtStart) };
	}
	const calls: ToolCall[] = [];
	const records = new Map<string, CallRecord>();
	let complete = false;
	for (const message of messages.slice(start)) {
		switch (message.type) {
			case "tool_call":
				calls.push(message);
				records.set(message.callId, { started: false });
				break;
			case "tool_call_output": {
				const record = records.get(message.callId);
				if (record !== undefined) record.output = message;
				break;
			}
			case "approval_decision": {
				const record = records.get(message.callId);
				if (record !== undefined) {
					record.decision = {
						decision: message.decision,
						by: message.by,
						...(message.correlationId === undefined ? {} : { correlationId: message.correlationId }),
					};
				}
				break;
			}
			case "confirmation_required": {
				const record = records.get(message.callId);
				if (record !== undefined) {
					const { correlationId, callId, name } = message;
					record.confirmation = { correlationId, callId, name, arguments: message.arguments, requestedAt: message.ts };
				}
				break;
			}
			case "tool_start": {
				const record = records.get(message.callId);
				if (record !== undefined) record.started = true;
				break;
			}
			case "request_end":
				if (message.status === "ok") complete = true;
				break;
			default:
				break;
		}
	}
	const taskSoFar = taskSince(messages, openAtStart);
	// An output that completed with no calls was the Task's answer: only its `done` was lost.
	if (complete) return calls.length === 0 ? undefined : { kind: "batch", calls, records, taskSoFar };
	return { kind: "stream", calls, records, taskSoFar };
}

/** A turn's first request: not a reconnect's attempt, not a compaction's request. */
export function isTurnStart(message: OmniMessage): boolean {
	return message.type === "request_begin" && message.attempt === 0 && message.purpose === undefined;
}

/**
 * The turns and tokens of the Task that ends the Trace: back to the `done` before it, or, when
 * the file began in the middle of that Task, to the file's start plus what it had made before.
 */
function taskSince(messages: readonly OmniMessage[], openAtStart: TaskSoFar | undefined): TaskSoFar {
	const usage = emptyUsage();
	let turns = 0;
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as OmniMessage;
		if (message.type === "done") return { turns, usage };
		if (message.type === "token_usage") addUsage(usage, message.request);
		else if (isTurnStart(message)) turns++;
	}
	if (openAtStart !== undefined) {
		turns += openAtStart.turns;
		addUsage(usage, openAtStart.usage);
	}
	return { turns, usage };
}

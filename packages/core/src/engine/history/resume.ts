import { toolCallOutput, userText } from "../../messages/constructors.js";
import { writeMarker } from "../../messages/markers.js";
import {
	type DoneReason,
	type ErrorInfo,
	isModelMessage,
	type ModelMessage,
	type OmniMessage,
	type Usage,
} from "../../messages/omni-message.js";
import { INTERRUPTED_OUTPUT } from "../../tools/tool-execution.js";
import type { TaskSoFar } from "../../trace/trace-header.js";
import {
	crashOutput,
	findUnfinishedTurn,
	isTurnStart,
	placeholderOutputs,
	type UnfinishedTurn,
} from "../continuation/unfinished-turn.js";
import { ensurePairing } from "../pairing.js";
import { callLine, partialTurnText } from "../turn/carry-over.js";

export interface RebuiltSession {
	/** The model context, less the outputs of an unfinished last turn. */
	context: ModelMessage[];
	/** The outputs of the unfinished turn's calls, in call order (placeholders for the missing ones): what the next run sends first. */
	carryOver: ModelMessage[];
	/** The last turn of a Task a crash or restart cut off, which `continueTask` can carry on. */
	unfinished: UnfinishedTurn | undefined;
	/** The highest seq written in the file. */
	seq: number;
	/** The last `token_usage.session` of the file; undefined when it has none (just rotated). */
	usage: Usage | undefined;
	/** Turns recorded in this file (first attempts of requests). */
	turns: number;
	/** The last request's total tokens, for the `context` compaction trigger. */
	lastRequestTotal: number;
}

/**
 * Rebuilds the model context from one Trace file's messages. The Trace holds outputs in the
 * order they finished and no carry-over, and may be cut mid-turn (a crash). A Task cut off in its
 * last turn leaves that turn unfinished: its outputs (finished ones, else an `interrupted` one
 * saying whether the call had started) become the carry-over, unless the Task is continued.
 * Any other call left without an output gets such a placeholder in place, and pairing puts
 * outputs in call order, so the first request after a resume is valid. No call is run again.
 */
export function rebuildFromTrace(messages: readonly OmniMessage[], openAtStart?: TaskSoFar): RebuiltSession {
	const unfinished = findUnfinishedTurn(messages, openAtStart);
	const pending = new Set(unfinished?.calls.map((call) => call.callId));
	const model: ModelMessage[] = [];
	const started = new Set<string>();
	const answered = new Set<string>();
	let seq = 0;
	let usage: Usage | undefined;
	let turns = 0;
	let lastRequestTotal = 0;
	/** The total of the request whose request_end comes next (token_usage is written just before it). */
	let requestTotal = 0;
	let compacting = false;
	// Calls of the current Task still without an output, and those a person's abort left so.
	let open: string[] = [];
	const aborted = new Set<string>();
	/** Where the current turn's model messages begin in `model`. */
	let turnStart = 0;
	/**
	 * The current turn's last request failed for good: its output never completed and no reconnect
	 * followed (a `request_end` planning one says so; a Task cut off while it waited left none).
	 */
	let outputFailed = false;
	/** The request open now is a turn's (not a compaction's or a title's). */
	let turnRequest = false;
	for (const message of messages) {
		if (message.seq > seq) seq = message.seq;
		if (isModelMessage(message)) {
			if (message.type === "tool_call_output") {
				if (pending.has(message.callId)) continue;
				answered.add(message.callId);
			} else if (message.type === "tool_call") open.push(message.callId);
			model.push(message);
		} else if (message.type === "tool_start") started.add(message.callId);
		else if (message.type === "request_begin") turnRequest = message.purpose === undefined;
		else if (message.type === "token_usage") {
			usage = message.session;
			requestTotal = message.request.total;
		} else if (message.type === "request_end") {
			// As the live Session reads it: the `context` trigger reads the last turn's total, of a
			// request that ended ok (a compaction's request is no turn; a failed one says nothing).
			if (!compacting && message.status === "ok") lastRequestTotal = requestTotal;
			if (turnRequest) outputFailed = message.status !== "ok" && message.retry_in_ms === undefined;
		} else if (message.type === "compaction_begin") compacting = true;
		// A Task's end closes a compaction too (a Trace written before every begin got its end).
		else if (message.type === "compaction_end" || message.type === "done") compacting = false;
		if (isTurnStart(message)) {
			turns++;
			turnStart = model.length;
			outputFailed = false;
		}
		// The turn ended before the model's output completed — the person stopped it (abort B), or a
		// failure ended the Task (`done` error, its last request failed for good; a Task that ends on
		// its own any other way has its output complete): as in the live Session, its messages never
		// joined the context; one [turn_aborted] note says what it had produced. Steering it could not
		// deliver (recorded at its end) stays, after the note, as the live carry-over has it.
		const cutShort =
			message.type === "abort"
				? message.carryOver === "B"
				: message.type === "done" && message.reason === "error" && outputFailed;
		if (cutShort) {
			const turn = model.splice(turnStart);
			const cut = turn.filter((m) => m.type !== "user_text");
			for (const m of cut) if (m.type === "tool_call") answered.add(m.callId);
			const ending = message.type === "done" ? message : { reason: "user_abort" as const };
			model.push(turnAbortedNote(cut, ending), ...turn.filter((m) => m.type === "user_text"));
		}
		if (message.type === "done") outputFailed = false;
		if (message.type === "abort") for (const callId of open) if (!answered.has(callId)) aborted.add(callId);
		if (message.type === "done") open = [];
	}
	for (const message of messages) {
		if (message.type !== "tool_call" || answered.has(message.callId) || pending.has(message.callId)) continue;
		// As the live carry-over words it when the person stopped the Task; else a crash's wording.
		model.push(
			aborted.has(message.callId)
				? toolCallOutput(message, INTERRUPTED_OUTPUT, "interrupted")
				: crashOutput(message, started.has(message.callId)),
		);
		answered.add(message.callId);
	}
	const carryOver = unfinished === undefined ? [] : placeholderOutputs(unfinished);
	const paired = ensurePairing([...model, ...carryOver]).messages;
	if (endsWith(paired, carryOver)) {
		const context = paired.slice(0, paired.length - carryOver.length);
		return { context, carryOver, unfinished, seq, usage, turns, lastRequestTotal };
	}
	// A later prompt was recorded without its request (a crash tore the line that followed it):
	// that Task had given the turn up, so its outputs stay in place and nothing is continued.
	return { context: paired, carryOver: [], unfinished: undefined, seq, usage, turns, lastRequestTotal };
}

/**
 * The live carry-over's note for a turn cut off mid-output (`ending`: the person's abort, or the
 * Task's `done`), from what its Trace holds: its complete messages (the text still streaming when
 * it stopped is not in the Trace).
 */
function turnAbortedNote(
	cut: readonly ModelMessage[],
	ending: { reason: DoneReason; error?: ErrorInfo | undefined },
): ModelMessage {
	const outputs = new Map(cut.flatMap((m) => (m.type === "tool_call_output" ? [[m.callId, m] as const] : [])));
	const text = partialTurnText(ending, {
		thought: cut.flatMap((m) => (m.type === "reasoning" ? [m.text] : [])),
		said: cut.flatMap((m) => (m.type === "assistant_text" ? [m.text] : [])),
		calls: cut.flatMap((m) => (m.type === "tool_call" ? [callLine(m, outputs.get(m.callId))] : [])),
	});
	return userText(writeMarker("turn_aborted", text));
}

/**
 * True when pairing left the carry-over as the tail: the unfinished turn's calls are the context's
 * last assistant run, so the carry-over can be sent after the context as it is.
 */
function endsWith(paired: readonly ModelMessage[], tail: readonly ModelMessage[]): boolean {
	const from = paired.length - tail.length;
	return tail.every((message, i) => paired[from + i] === message);
}

/**
 * What a Trace file's requests spent: its last `token_usage.session` and its turns, counted over
 * every message — a rewind takes messages out of the context, not the tokens or turns they cost
 * (docs/checkpoints.md).
 */
export function spentInTrace(messages: readonly OmniMessage[]): { usage: Usage | undefined; turns: number } {
	let usage: Usage | undefined;
	let turns = 0;
	for (const message of messages) {
		if (message.type === "token_usage") usage = message.session;
		else if (isTurnStart(message)) turns++;
	}
	return { usage, turns };
}

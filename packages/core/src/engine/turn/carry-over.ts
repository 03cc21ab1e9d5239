import { toolCallOutput, userText } from "../../messages/constructors.js";
import { writeMarker } from "../../messages/markers.js";
import type { DoneReason, ErrorInfo, ModelMessage, ToolCall, ToolCallOutput } from "../../messages/omni-message.js";
import { INTERRUPTED_OUTPUT } from "../../tools/tool-execution.js";
import type { LoopState } from "../loop-types.js";
import type { Turn } from "./turn.js";

export type InterruptCase = "A" | "B" | "none";

export interface CarryOver {
	case: InterruptCase;
	messages: ModelMessage[];
}

/**
 * What the next `run` must send first when a Task ends in the middle of a turn (spec:
 * "Interruption and carry-over"; an error mid-turn is treated the same way, so the model learns
 * of any tool that already ran).
 *
 * Case A — the model's output had completed: finished outputs are re-sent as they were, and every
 * unfinished call gets an `[interrupted: tool aborted by user]` output, so pairing stays intact.
 * Case B — the output was incomplete: the whole turn becomes one `[turn_aborted]` user text
 * carrying whatever partial output existed (its messages never joined the model context).
 */
export function buildCarryOver(turn: Turn, ending: Extract<LoopState, { kind: "done" }>): CarryOver {
	// Already in the context: its outputs, or (a turn given up for a context overflow) its note.
	if (turn.outputsDelivered) return { case: "none", messages: [] };
	if (turn.outputComplete) {
		const messages = turn.calls.map(
			(call) => turn.batch.outputFor(call.callId) ?? toolCallOutput(call, INTERRUPTED_OUTPUT, "interrupted"),
		);
		return { case: "A", messages };
	}
	return { case: "B", messages: [userText(writeMarker("turn_aborted", describePartialTurn(turn, ending)))] };
}

function describePartialTurn(turn: Turn, ending: Extract<LoopState, { kind: "done" }>): string {
	const calls: string[] = [];
	for (const call of turn.calls) calls.push(callLine(call, turn.batch.outputFor(call.callId)));
	for (const lost of turn.lostCalls) calls.push(`- ${lost.name}(${lost.args}…) → cut off by a failed attempt, not run`);
	for (const partial of turn.partialCalls.values()) {
		calls.push(`- ${partial.name}(${partial.args.text}…) → never completed, not run`);
	}
	return partialTurnText(ending, {
		thought: [
			...turn.assistant.flatMap((m) => (m.type === "reasoning" ? [m.text] : [])),
			...turn.lostReasoning,
			turn.partialReasoning.text,
		],
		said: [
			...turn.lostText,
			...turn.assistant.flatMap((m) => (m.type === "assistant_text" ? [m.text] : [])),
			turn.partialText.text,
		],
		calls,
	});
}

/** What a turn cut off before the model finished had produced, for its `[turn_aborted]` note. */
export interface PartialTurn {
	thought: readonly string[];
	said: readonly string[];
	/** One line per call (`callLine`). */
	calls: readonly string[];
}

/** A call of a cut-off turn, and what became of it. */
export function callLine(call: ToolCall, output: ToolCallOutput | undefined): string {
	const result = output === undefined ? "did not finish" : `${output.status}: ${output.output}`;
	return `- ${call.name}(${call.arguments}) → ${result}`;
}

/** The `[turn_aborted]` note's text: how the turn ended, then what it had produced. */
export function partialTurnText(
	ending: { reason: DoneReason; error?: ErrorInfo | undefined },
	turn: PartialTurn,
): string {
	const lines = [
		ending.reason === "user_abort"
			? "The user interrupted this turn before the model finished its response."
			: `This turn failed before the model finished its response (${ending.error?.kind ?? "error"}: ${ending.error?.message ?? "unknown"}).`,
	];
	const thought = turn.thought.filter(Boolean);
	if (thought.length > 0) lines.push("Partial reasoning:", thought.join("\n"));
	const said = turn.said.filter(Boolean);
	if (said.length > 0) lines.push("Partial response:", said.join("\n"));
	if (turn.calls.length > 0) lines.push("Tool calls in this turn:", ...turn.calls);
	if (thought.length === 0 && said.length === 0 && turn.calls.length === 0)
		lines.push("It had produced no output yet.");
	return lines.join("\n");
}

import { toolCallOutput, userText } from "../../messages/constructors.js";
import { writeMarker } from "../../messages/markers.js";
import type { ModelMessage } from "../../messages/omni-message.js";
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
	const lines = [
		ending.reason === "user_abort"
			? "The user interrupted this turn before the model finished its response."
			: `This turn failed before the model finished its response (${ending.error?.kind ?? "error"}: ${ending.error?.message ?? "unknown"}).`,
	];
	const thought = [
		...turn.assistant.flatMap((m) => (m.type === "reasoning" ? [m.text] : [])),
		...turn.lostReasoning,
		turn.partialReasoning.text,
	].filter(Boolean);
	if (thought.length > 0) lines.push("Partial reasoning:", thought.join("\n"));
	const said = [
		...turn.lostText,
		...turn.assistant.flatMap((m) => (m.type === "assistant_text" ? [m.text] : [])),
		turn.partialText.text,
	].filter(Boolean);
	if (said.length > 0) lines.push("Partial response:", said.join("\n"));
	const calls: string[] = [];
	for (const call of turn.calls) {
		const output = turn.batch.outputFor(call.callId);
		const result = output === undefined ? "did not finish" : `${output.status}: ${output.output}`;
		calls.push(`- ${call.name}(${call.arguments}) → ${result}`);
	}
	for (const lost of turn.lostCalls) calls.push(`- ${lost.name}(${lost.args}…) → cut off by a failed attempt, not run`);
	for (const partial of turn.partialCalls.values()) {
		calls.push(`- ${partial.name}(${partial.args.text}…) → never completed, not run`);
	}
	if (calls.length > 0) lines.push("Tool calls in this turn:", ...calls);
	if (thought.length === 0 && said.length === 0 && calls.length === 0) lines.push("It had produced no output yet.");
	return lines.join("\n");
}

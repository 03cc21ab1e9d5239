import { toolCallOutput, userText } from "../messages/constructors.js";
import { writeMarker } from "../messages/markers.js";
import type { ModelMessage } from "../messages/omni-message.js";
import { INTERRUPTED_OUTPUT } from "../tools/tool-execution.js";
import type { Turn } from "./turn.js";

export type InterruptCase = "A" | "B" | "none";

export interface CarryOver {
	case: InterruptCase;
	messages: ModelMessage[];
}

/**
 * What the next `run` must send first after an interruption (spec: "Interruption and carry-over").
 *
 * Case A — the model's output had completed: finished outputs are re-sent as they were, and every
 * unfinished call gets an `[interrupted: tool aborted by user]` output, so pairing stays intact.
 * Case B — the output was incomplete: the whole turn becomes one `[turn_aborted]` user text
 * carrying whatever partial output existed (its messages never joined the model context).
 */
export function buildCarryOver(turn: Turn | undefined): CarryOver {
	if (turn === undefined) return { case: "none", messages: [] };
	if (turn.outputComplete) {
		const messages = turn.calls.map(
			(call) => turn.batch.outputFor(call.callId) ?? toolCallOutput(call, INTERRUPTED_OUTPUT, "interrupted"),
		);
		return { case: "A", messages };
	}
	return { case: "B", messages: [userText(writeMarker("turn_aborted", describePartialTurn(turn)))] };
}

function describePartialTurn(turn: Turn): string {
	const lines = ["The user interrupted this turn before the model finished its response."];
	const said: string[] = [];
	for (const message of turn.assistant) {
		if (message.type === "assistant_text") said.push(message.text);
	}
	if (turn.partialText !== "") said.push(turn.partialText);
	if (said.length > 0) lines.push("Partial response:", said.join("\n"));
	const calls: string[] = [];
	for (const call of turn.calls) {
		const output = turn.batch.outputFor(call.callId);
		const result = output === undefined ? "did not finish" : `${output.status}: ${output.output}`;
		calls.push(`- ${call.name}(${call.arguments}) → ${result}`);
	}
	for (const partial of turn.partialCalls.values()) {
		calls.push(`- ${partial.name}(${partial.args}…) → never completed, not run`);
	}
	if (calls.length > 0) lines.push("Tool calls in this turn:", ...calls);
	if (said.length === 0 && calls.length === 0) lines.push("It had produced no output yet.");
	return lines.join("\n");
}

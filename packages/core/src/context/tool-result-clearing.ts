import type { ModelMessage, ToolCallOutput } from "../messages/omni-message.js";

const CLEARED_PREFIX = "[tool output cleared to save context:";

export function clearedOutput(length: number): string {
	return `${CLEARED_PREFIX} ${length} characters]`;
}

/**
 * Replaces the outputs of turns older than the last `keepTurns` with a short placeholder. Calls
 * and outputs stay (same ids, same status), so pairing is untouched; only the text shrinks. A turn
 * is a run of assistant messages. Returns the same array when nothing was cleared.
 */
export function clearOldToolResults(
	context: ModelMessage[],
	keepTurns: number,
): { messages: ModelMessage[]; cleared: number } {
	let runsAfter = 0;
	let laterIsAssistant = false;
	let result: ModelMessage[] | undefined;
	let cleared = 0;
	for (let i = context.length - 1; i >= 0; i--) {
		const message = context[i] as ModelMessage;
		const assistant = message.type === "assistant_text" || message.type === "reasoning" || message.type === "tool_call";
		if (assistant && !laterIsAssistant) runsAfter++;
		laterIsAssistant = assistant;
		// An output's own turn is the run before it: it is older than the last N when N runs follow it.
		if (message.type !== "tool_call_output" || runsAfter < keepTurns || message.output.startsWith(CLEARED_PREFIX))
			continue;
		result ??= context.slice();
		const replacement: ToolCallOutput = { ...message, output: clearedOutput(message.output.length) };
		result[i] = replacement;
		cleared++;
	}
	return { messages: result ?? context, cleared };
}

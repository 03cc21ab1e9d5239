import { isModelMessage, type ModelMessage, type OmniMessage } from "../../messages/omni-message.js";
import { RunInputError } from "../session/errors.js";

/** Copies the prompt (seq 0, the caller's objects untouched) after checking it. */
export function checkRunInput(input: readonly ModelMessage[], hasCarryOver: boolean): ModelMessage[] {
	if (!Array.isArray(input)) throw new RunInputError("run(input): input must be an array of model messages");
	const prompt = input.map((message, index) => {
		if (typeof message !== "object" || message === null || !isModelMessage(message as OmniMessage)) {
			const type = (message as { type?: unknown } | null)?.type;
			throw new RunInputError(
				`run(input): input[${index}] has type ${JSON.stringify(type)}; expected a model message (user_text, assistant_text, reasoning, tool_call, tool_call_output), e.g. userText("…")`,
			);
		}
		return { ...message, seq: 0 };
	});
	if (prompt.length === 0 && !hasCarryOver) {
		throw new RunInputError("run(input): input is empty and there is no carry-over to continue from");
	}
	return prompt;
}

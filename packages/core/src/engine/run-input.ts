import { isModelMessage, type ModelMessage, type OmniMessage } from "../messages/omni-message.js";
import { RunInputError } from "./errors.js";

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

/**
 * A generator with one addition: if it is closed before it was ever read, `release` runs all the
 * same (an unread async generator never runs its `finally`).
 */
export function startOnFirstRead<T>(
	inner: AsyncGenerator<T, void, undefined>,
	release: () => void,
): AsyncGenerator<T, void, undefined> {
	let started = false;
	const outer: AsyncGenerator<T, void, undefined> = {
		next: (...args) => {
			started = true;
			return inner.next(...args);
		},
		return: async (value) => {
			const result = await inner.return(value);
			if (!started) release();
			return result;
		},
		throw: async (error) => {
			const result = await inner.throw(error);
			if (!started) release();
			return result;
		},
		[Symbol.asyncIterator]: () => outer,
	};
	return outer;
}

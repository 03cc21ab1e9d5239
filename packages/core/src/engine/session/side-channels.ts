import { userText } from "../../messages/constructors.js";
import type { ModelMessage } from "../../messages/omni-message.js";
import { ModelError } from "../../model/failure.js";
import type { ModelAdapter } from "../../model/model-adapter.js";

/** How much of the conversation a title is written from. */
const TITLE_SOURCE_CHARS = 6000;

/**
 * A title for the conversation: one out-of-band call with no tools and no system prompt. It
 * never enters the history or the Trace. `redact` replaces the credential values in the model's
 * text. Throws a ModelError when the model fails.
 */
export async function generateTitle(
	model: ModelAdapter,
	context: readonly ModelMessage[],
	signal: AbortSignal,
	redact: (text: string) => string,
): Promise<string> {
	const transcript = transcriptOf(context);
	const prompt = `Write a short title, 3 to 8 words, for the conversation below. Reply with the title alone: no quotes, no trailing period.\n\n${transcript}`;
	let text = "";
	try {
		for await (const event of model.streamGenerate(
			{ messages: [userText(prompt)], tools: [], purpose: "title" },
			signal,
		)) {
			if (event.type === "text") text += event.text;
			if (event.type === "outcome" && event.outcome.status === "error") throw new ModelError(event.outcome.failure);
		}
	} catch (error) {
		// Its message goes to the caller (a server answers with it): a provider that echoes the key is redacted.
		if (error instanceof ModelError) throw new ModelError({ ...error.failure, message: redact(error.failure.message) });
		throw error;
	}
	// Redacted before it is cleaned: cleaning trims quotes and periods and cuts at 80 characters,
	// which could leave part of a value that no longer matches whole.
	const title = cleanTitle(redact(text));
	// A reply with no text (a tool call, only reasoning) is no title: a host would save a blank one.
	if (title === "") throw new ModelError({ class: "malformed", message: "the model's reply held no title" });
	return title;
}

function transcriptOf(context: readonly ModelMessage[]): string {
	const lines: string[] = [];
	for (const message of context) {
		if (message.type === "user_text") lines.push(`User: ${message.text}`);
		else if (message.type === "assistant_text") lines.push(`Assistant: ${message.text}`);
	}
	const text = lines.join("\n");
	return text.length <= TITLE_SOURCE_CHARS ? text : `${text.slice(0, TITLE_SOURCE_CHARS)}…`;
}

export function cleanTitle(text: string): string {
	const first = text.trim().split("\n")[0] ?? "";
	const unquoted = first.replace(/^["'“”#*\s]+|["'“”*\s.]+$/g, "");
	return unquoted.length > 80 ? `${unquoted.slice(0, 79)}…` : unquoted;
}

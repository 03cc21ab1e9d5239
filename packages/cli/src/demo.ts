import { ScriptedModel, say, think } from "@omniloop/core/testing";

/**
 * The offline demo: the scripted model, clearly labelled, so a new machine shows streaming
 * without any provider key.
 */
export async function runDemo(out: NodeJS.WritableStream): Promise<void> {
	const model = new ScriptedModel([
		[
			think("The user wants to see omniloop stream."),
			say("Hello from omniloop. This answer streams in pieces, as a real model's would.", [
				"Hello from omniloop. ",
				"This answer streams ",
				"in pieces, ",
				"as a real model's would.",
			]),
		],
	]);
	out.write("omniloop — offline demo (scripted model, no provider is called)\n\n");
	for await (const event of model.streamGenerate(
		{ messages: [], tools: [], purpose: "turn" },
		new AbortController().signal,
	)) {
		if (event.type === "text_delta") out.write(event.delta);
	}
	out.write("\n");
}

// The model path through omniloop's AI SDK adapter (openai-compatible), as a Session reads it.
import { AiSdkModel, userText } from "@omniloop/core";

export async function read(url) {
	const model = AiSdkModel.fromConfig({
		provider: "openai-compatible",
		model: "bench",
		apiKey: "k",
		baseURL: `${url}/v1`,
	});
	let chars = 0;
	for await (const event of model.streamGenerate(
		{ messages: [userText("go")], tools: [], purpose: "turn" },
		new AbortController().signal,
	)) {
		if (event.type === "text_delta") chars += event.delta.length;
	}
	return chars;
}

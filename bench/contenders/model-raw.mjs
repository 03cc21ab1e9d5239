// The model path's baseline: fetch + eventsource-parser, the least a client can do.
import { EventSourceParserStream } from "eventsource-parser/stream";

export async function read(url) {
	const response = await fetch(`${url}/v1/chat/completions`, {
		method: "POST",
		headers: { "content-type": "application/json", authorization: "Bearer k" },
		body: JSON.stringify({
			model: "bench",
			stream: true,
			stream_options: { include_usage: true },
			messages: [{ role: "user", content: "go" }],
		}),
	});
	let chars = 0;
	const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
	for await (const event of events) {
		if (event.data === "[DONE]") break;
		const content = JSON.parse(event.data).choices?.[0]?.delta?.content;
		if (content) chars += content.length;
	}
	return chars;
}

/** One Server-Sent Events frame (docs/protocol.md §6.1): its `id:` and its `data:` lines joined. */
export interface SseFrame {
	id: string | undefined;
	data: string;
}

/** The frames of an SSE body, as they arrive; comments (`: ping`) are skipped. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame, void, undefined> {
	const decoder = new TextDecoder();
	let buffer = "";
	for await (const chunk of body) {
		buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, "\n");
		for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
			const frame = parseFrame(buffer.slice(0, end));
			buffer = buffer.slice(end + 2);
			if (frame !== undefined) yield frame;
		}
	}
}

function parseFrame(text: string): SseFrame | undefined {
	let id: string | undefined;
	const data: string[] = [];
	for (const line of text.split("\n")) {
		if (line.startsWith(":") || line === "") continue;
		const colon = line.indexOf(":");
		const field = colon === -1 ? line : line.slice(0, colon);
		const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
		if (field === "id") id = value;
		else if (field === "data") data.push(value);
	}
	if (id === undefined && data.length === 0) return undefined;
	return { id, data: data.join("\n") };
}

import type { FakeReply, RecordedProviderRequest } from "@omniloop/core/testing";

function contentText(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) return content.map((part) => (part as { text?: string }).text ?? "").join("");
	return "";
}

/**
 * A stateless fake model, so a turn redone by a taker gets the same answer: the last user message
 * holding `mark:<m>` gets a slow text and one shell call appending `<m>` to marker.txt (then a
 * half-second sleep, room for a fault while the tool runs) until a tool output follows it, then a
 * slow closing text (room for a fault during a model request); any other prompt gets a short text.
 */
export function markReply(request: RecordedProviderRequest): FakeReply {
	const messages = (request.body as { messages?: { role: string; content?: unknown }[] }).messages ?? [];
	const index = messages.findLastIndex((m) => m.role === "user");
	const mark = /mark:(\w+)/.exec(contentText(messages[index]?.content))?.[1];
	if (mark === undefined) return { text: "answer" };
	const outputs = messages.slice(index).filter((m) => m.role === "tool").length;
	const words = (word: string) => Array.from({ length: 20 }, () => `${word} `);
	if (outputs > 0) return { text: words("d"), chunkDelayMs: 20 };
	return {
		text: words("w"),
		chunkDelayMs: 20,
		toolCalls: [{ name: "shell", arguments: { command: `echo ${mark} >> marker.txt; sleep 0.5` } }],
	};
}

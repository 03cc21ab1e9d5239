import type { ModelMessage, Usage } from "../../messages/omni-message.js";
import type { ModelRequest } from "../model-adapter.js";

/** One reply of the demo's script: some reasoning and text, then at most one tool call. */
export interface DemoReply {
	reasoning?: string;
	text: string;
	call?: { name: string; args: Record<string, string> };
}

/** About four characters a token, as for English text and code. */
const CHARS_PER_TOKEN = 4;

/**
 * The demo's usage, counted the way a provider would report it: the system prompt, the tools'
 * definitions and the text of every message are input; everything up to the model's last reply
 * was sent before, so a provider would serve it from its prompt cache; reasoning is part of the
 * output and also counted on its own.
 */
export function estimateUsage(request: ModelRequest, reply: DemoReply): Usage {
	const fixed = tokens(request.system ?? "") + tokens(JSON.stringify(request.tools));
	const perMessage = request.messages.map(messageTokens);
	const input = fixed + sum(perMessage);
	const lastReply = request.messages.findLastIndex((m) => m.type === "assistant_text" || m.type === "tool_call");
	const cacheRead = lastReply === -1 ? 0 : fixed + sum(perMessage.slice(0, lastReply + 1));
	const reasoning = tokens(reply.reasoning ?? "");
	const output = reasoning + tokens(reply.text) + (reply.call === undefined ? 0 : tokens(JSON.stringify(reply.call)));
	return { input, output, cacheRead, cacheWrite: 0, reasoning, total: input + output };
}

function messageTokens(message: ModelMessage): number {
	switch (message.type) {
		case "user_text":
			return tokens(message.text) + 4;
		case "assistant_text":
		case "reasoning":
			return tokens(message.text) + 4;
		case "tool_call":
			return tokens(message.name) + tokens(message.arguments) + 8;
		case "tool_call_output":
			return tokens(message.output) + 8;
	}
}

function tokens(text: string): number {
	return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function sum(values: readonly number[]): number {
	return values.reduce((total, n) => total + n, 0);
}

import type {
	LanguageModelV3FunctionTool,
	LanguageModelV3Message,
	LanguageModelV3Prompt,
	SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import type { ModelMessage, ToolCallOutput } from "../../messages/omni-message.js";
import type { ModelRequest, ToolSpec } from "../model-adapter.js";

type AssistantPart = Extract<LanguageModelV3Message, { role: "assistant" }>["content"][number];
type ToolPart = Extract<LanguageModelV3Message, { role: "tool" }>["content"][number];

/**
 * OmniMessages → the AI SDK prompt. Consecutive messages of one role become one message (one
 * assistant turn, one batch of tool results), which is what every provider expects. The mapping
 * is a pure function of the messages, so a request's prefix serializes the same way every time.
 */
export function toPrompt(request: ModelRequest): LanguageModelV3Prompt {
	const prompt: LanguageModelV3Prompt = [];
	if (request.system !== undefined && request.system !== "") prompt.push({ role: "system", content: request.system });
	for (const message of request.messages) append(prompt, message);
	return prompt;
}

function append(prompt: LanguageModelV3Prompt, message: ModelMessage): void {
	const last = prompt[prompt.length - 1];
	switch (message.type) {
		case "user_text": {
			const part = { type: "text" as const, text: message.text };
			if (last?.role === "user") last.content.push(part);
			else prompt.push({ role: "user", content: [part] });
			return;
		}
		case "tool_call_output": {
			const part = toolResult(message);
			if (last?.role === "tool") last.content.push(part);
			else prompt.push({ role: "tool", content: [part] });
			return;
		}
		default: {
			const part = assistantPart(message);
			if (last?.role === "assistant") last.content.push(part);
			else prompt.push({ role: "assistant", content: [part] });
		}
	}
}

function assistantPart(message: Exclude<ModelMessage, { type: "user_text" | "tool_call_output" }>): AssistantPart {
	switch (message.type) {
		case "assistant_text":
			return { type: "text", text: message.text };
		case "reasoning":
			return message.providerMetadata === undefined
				? { type: "reasoning", text: message.text }
				: {
						type: "reasoning",
						text: message.text,
						providerOptions: message.providerMetadata as SharedV3ProviderOptions,
					};
		case "tool_call":
			return {
				type: "tool-call",
				toolCallId: message.callId,
				toolName: message.name,
				input: parseArguments(message.arguments),
				...(message.providerMetadata === undefined
					? {}
					: { providerOptions: message.providerMetadata as SharedV3ProviderOptions }),
			};
	}
}

function toolResult(message: ToolCallOutput): ToolPart {
	return {
		type: "tool-result",
		toolCallId: message.callId,
		toolName: message.name,
		output:
			message.status === "error"
				? { type: "error-text", value: message.output }
				: { type: "text", value: message.output },
	};
}

/** Providers take the arguments as a value; text that is not JSON is passed as the string it is. */
function parseArguments(text: string): unknown {
	if (text.trim() === "") return {};
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

export function toTools(specs: readonly ToolSpec[]): LanguageModelV3FunctionTool[] {
	return specs.map((spec) => ({
		type: "function",
		name: spec.name,
		description: spec.description,
		inputSchema: spec.inputSchema as LanguageModelV3FunctionTool["inputSchema"],
	}));
}

const EPHEMERAL: SharedV3ProviderOptions = { anthropic: { cacheControl: { type: "ephemeral" } } };

/**
 * Anthropic prompt caching: breakpoints on the stable prefix. The system prompt (tools are cached
 * with it, since they come first), the end of the previous request's prompt (so this request
 * reads what the last one wrote) and the last message (so the next one can read this one).
 *
 * A compaction request is the last request plus what followed it plus the compaction prompt: it
 * keeps exactly the last request's breakpoints, so its prefix is byte for byte that request, and
 * marks its own end. Anthropic allows four breakpoints; this uses at most four.
 */
export function addCacheBreakpoints(prompt: LanguageModelV3Prompt, purpose: ModelRequest["purpose"]): void {
	const system = prompt.find((m) => m.role === "system");
	if (system !== undefined) system.providerOptions = EPHEMERAL;
	if (purpose !== "compaction") {
		markRequestEnds(prompt, prompt.length);
		return;
	}
	const lastAssistant = prompt.findLastIndex((m) => m.role === "assistant");
	if (lastAssistant > 0) markRequestEnds(prompt, lastAssistant);
	markLastPart(prompt[prompt.length - 1]);
}

/** Marks the end of the request made of `prompt[0, end)` and the end of the request before it. */
function markRequestEnds(prompt: LanguageModelV3Prompt, end: number): void {
	markLastPart(prompt[end - 1]);
	// The request before ended where the latest assistant message begins.
	for (let i = end - 2; i > 0; i--) {
		if (prompt[i]?.role === "assistant") {
			markLastPart(prompt[i - 1]);
			return;
		}
	}
}

function markLastPart(message: LanguageModelV3Message | undefined): void {
	if (message === undefined || message.role === "system") return;
	const part = message.content[message.content.length - 1];
	if (part !== undefined) part.providerOptions = { ...part.providerOptions, ...EPHEMERAL };
}

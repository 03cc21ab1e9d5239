import { readFileSync } from "node:fs";
import type {
	LanguageModelV3,
	LanguageModelV3CallOptions,
	LanguageModelV3FunctionTool,
	LanguageModelV3StreamPart,
} from "@ai-sdk/provider";

/** Helpers to drive a real AI SDK model against the fake server and summarise what it produced. */

export const PROMPT: LanguageModelV3CallOptions["prompt"] = [
	{ role: "user", content: [{ type: "text", text: "What is the weather in Paris?" }] },
];

export const TOOLS: LanguageModelV3FunctionTool[] = [
	{
		type: "function",
		name: "weather",
		description: "The weather in a city.",
		inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
	},
	{ type: "function", name: "clock", description: "The time.", inputSchema: { type: "object", properties: {} } },
];

type FinishPart = Extract<LanguageModelV3StreamPart, { type: "finish" }>;

export interface StreamSummary {
	parts: LanguageModelV3StreamPart[];
	/** Text deltas, the empty ones included. */
	textDeltas: string[];
	text: string;
	reasoningDeltas: string[];
	toolCalls: { id: string; name: string; input: string }[];
	/** The `error` parts, in order. */
	errors: unknown[];
	finish: FinishPart | undefined;
	/** What reading the stream rejected with, if it did. */
	thrown: unknown;
}

export function summarise(parts: LanguageModelV3StreamPart[], thrown: unknown = undefined): StreamSummary {
	const textDeltas: string[] = [];
	const reasoningDeltas: string[] = [];
	const toolCalls: StreamSummary["toolCalls"] = [];
	const errors: unknown[] = [];
	let finish: FinishPart | undefined;
	for (const part of parts) {
		if (part.type === "text-delta") textDeltas.push(part.delta);
		else if (part.type === "reasoning-delta") reasoningDeltas.push(part.delta);
		else if (part.type === "tool-call") toolCalls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
		else if (part.type === "error") errors.push(part.error);
		else if (part.type === "finish") finish = part;
	}
	return { parts, textDeltas, text: textDeltas.join(""), reasoningDeltas, toolCalls, errors, finish, thrown };
}

/** Calls `doStream` and reads the whole stream; a rejected read ends the summary, it is not thrown. */
export async function streamOf(
	model: LanguageModelV3,
	options: Partial<LanguageModelV3CallOptions> = {},
): Promise<StreamSummary> {
	const { stream } = await model.doStream({ prompt: PROMPT, tools: TOOLS, ...options });
	const parts: LanguageModelV3StreamPart[] = [];
	const reader = stream.getReader();
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) return summarise(parts);
			parts.push(value);
		}
	} catch (error) {
		return summarise(parts, error);
	}
}

/** What `doStream` rejected with (it must reject). */
export async function doStreamError(
	model: LanguageModelV3,
	options: Partial<LanguageModelV3CallOptions> = {},
): Promise<unknown> {
	try {
		await model.doStream({ prompt: PROMPT, tools: TOOLS, ...options });
	} catch (error) {
		return error;
	}
	throw new Error("doStream resolved; expected it to reject");
}

/** The payload lines of a recorded fixture file (test/fixtures/recorded-streams, shared with test/model). */
export function fixtureLines(name: string): string[] {
	return readFileSync(new URL(`../fixtures/recorded-streams/${name}.chunks.txt`, import.meta.url), "utf8").split("\n");
}

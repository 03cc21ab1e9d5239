import type { FakeReply, FakeToolCall, FakeUsage } from "./types.js";

/** The deltas of a reply part: absent stays absent, a string is one delta, an array is as given. */
export function deltasOf(value: string | string[] | undefined): string[] | undefined {
	if (value === undefined) return undefined;
	return typeof value === "string" ? [value] : value;
}

export function argumentsText(call: FakeToolCall): string {
	return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

/**
 * Splits text into `parts` pieces of near-equal length, cutting between code points only (the
 * APIs never split a character inside one JSON string). Empty text has no pieces.
 */
export function splitText(text: string, parts = 1): string[] {
	const chars = Array.from(text);
	if (chars.length === 0) return [];
	const count = Math.max(1, Math.min(Math.floor(parts), chars.length));
	const pieces: string[] = [];
	for (let i = 0; i < count; i++) {
		pieces.push(
			chars.slice(Math.floor((i * chars.length) / count), Math.floor(((i + 1) * chars.length) / count)).join(""),
		);
	}
	return pieces;
}

export interface ResolvedUsage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	reasoning: number;
	/** Whether the reply set them: some APIs report these fields only when there is something to say. */
	hasCacheWrite: boolean;
	hasReasoning: boolean;
}

export function resolveUsage(usage: FakeUsage | undefined): ResolvedUsage {
	return {
		input: usage?.input ?? 10,
		output: usage?.output ?? 5,
		cacheRead: usage?.cacheRead ?? 0,
		cacheWrite: usage?.cacheWrite ?? 0,
		reasoning: usage?.reasoning ?? 0,
		hasCacheWrite: usage?.cacheWrite !== undefined,
		hasReasoning: usage?.reasoning !== undefined,
	};
}

/** A fake id in an API's style, unique per server (request number) and per item. */
export function fakeId(prefix: string, requestNumber: number, index = 0): string {
	return `${prefix}fake${String(requestNumber).padStart(4, "0")}x${index}`;
}

export function finishesWithToolCalls(reply: FakeReply): boolean {
	return (reply.toolCalls?.length ?? 0) > 0;
}

export function unixSeconds(): number {
	return Math.floor(Date.now() / 1000);
}

import type { JsonValue } from "../../messages/omni-message.js";

/** Narrowing helpers for request bodies, which hold whatever the client sent. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
	return typeof value === "object" && value !== null && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}

export function asArray(value: unknown): unknown[] {
	return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
	return typeof value === "string" ? value : undefined;
}

/** Parses a request body; `null` when it is not JSON. */
export function parseBody(raw: string): JsonValue {
	try {
		return JSON.parse(raw) as JsonValue;
	} catch {
		return null;
	}
}

/**
 * A tool call's arguments with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the
 * same call (loop detection; a reconnect's repeat of a call already made). Text that is not JSON
 * is compared trimmed.
 */
export function canonicalArguments(text: string): string {
	try {
		return JSON.stringify(sortKeys(JSON.parse(text)));
	} catch {
		return text.trim();
	}
}

function sortKeys(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(sortKeys);
	if (typeof value !== "object" || value === null) return value;
	return Object.fromEntries(
		Object.keys(value)
			.sort()
			.map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
	);
}

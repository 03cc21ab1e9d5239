/**
 * A tool call's `arguments` (the model's JSON text, docs/protocol.md §4) as an object, for a
 * viewer to show; undefined when the text is not a JSON object (a model may send anything).
 */
export function argumentsObject(text: string): Record<string, unknown> | undefined {
	try {
		const value: unknown = JSON.parse(text);
		return typeof value === "object" && value !== null && !Array.isArray(value)
			? (value as Record<string, unknown>)
			: undefined;
	} catch {
		return undefined;
	}
}

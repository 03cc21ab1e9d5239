/** What the composer's text asks for: a slash command, or a message (a steer while working). */
export type ComposerIntent =
	| { kind: "compact" }
	| { kind: "title" }
	| { kind: "text"; text: string }
	| { kind: "empty" };

export function parseComposer(input: string): ComposerIntent {
	const text = input.trim();
	if (text === "") return { kind: "empty" };
	if (text === "/compact") return { kind: "compact" };
	if (text === "/title") return { kind: "title" };
	return { kind: "text", text };
}

import type { Command } from "commander";
import { UsageError } from "./errors.js";

/**
 * The words after `omniloop` that are not a command: the chat's first message. One word close to
 * a command's name is a typo, not a message (`omniloop sesions` must not become a Task).
 */
export function firstMessage(words: readonly string[], program: Command): string | undefined {
	if (words.length === 0) return undefined;
	const text = words.join(" ");
	if (words.length === 1 && !/\s/.test(text)) {
		const near = program.commands.map((c) => c.name()).find((name) => distance(name, text.toLowerCase()) <= 2);
		if (near !== undefined)
			throw new UsageError(
				`unknown command "${text}"; did you mean \`omniloop ${near}\`? (To send it as a message: omniloop chat "${text}")`,
			);
	}
	return text;
}

/** Levenshtein distance, for short words. */
function distance(a: string, b: string): number {
	let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const row = [i];
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			row[j] = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
		}
		previous = row;
	}
	return previous[b.length] as number;
}

/** A file's diff from its first hunk on: git's header lines (paths, modes, blob ids) left out. */
export function hunks(diff: string): string {
	const lines = diff.split("\n");
	const first = lines.findIndex((line) => line.startsWith("@@") || line.startsWith("Binary"));
	return first === -1 ? "" : lines.slice(first).join("\n");
}

/** The lines a file's diff adds and removes (its hunks only). */
export function lineCounts(diff: string): { added: number; removed: number } {
	let added = 0;
	let removed = 0;
	for (const line of hunks(diff).split("\n")) {
		if (line.startsWith("+")) added++;
		else if (line.startsWith("-")) removed++;
	}
	return { added, removed };
}

/** One line of a unified diff: kept, removed, added, or a hunk's header. */
export type DiffLine =
	| { kind: " " | "-" | "+"; text: string }
	| { kind: "@"; oldStart: number; newStart: number }
	| { kind: "…"; hidden: number };

/** Beyond this many cells (lines × lines) the middle is shown as all removed, then all added. */
const MAX_LCS_CELLS = 4_000_000;

/**
 * A line diff of two texts with `context` unchanged lines around each change. Edits touch one
 * region, so the common start and end are cut first and only the middle is compared (by longest
 * common subsequence, while that stays small).
 */
export function lineDiff(before: string, after: string, context = 3): DiffLine[] {
	const a = splitLines(before);
	const b = splitLines(after);
	let head = 0;
	while (head < a.length && head < b.length && a[head] === b[head]) head++;
	let tail = 0;
	while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
	const middle = compareMiddle(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
	const all: { kind: " " | "-" | "+"; text: string }[] = [
		...a.slice(0, head).map((text) => ({ kind: " " as const, text })),
		...middle,
		...a.slice(a.length - tail).map((text) => ({ kind: " " as const, text })),
	];
	return withContext(all, context);
}

function splitLines(text: string): string[] {
	if (text === "") return [];
	return text.replace(/\n$/, "").split("\n");
}

function compareMiddle(a: readonly string[], b: readonly string[]): { kind: " " | "-" | "+"; text: string }[] {
	if (a.length * b.length > MAX_LCS_CELLS) {
		return [...a.map((text) => ({ kind: "-" as const, text })), ...b.map((text) => ({ kind: "+" as const, text }))];
	}
	// lengths[i][j]: the LCS of a[i..] and b[j..].
	const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
	for (let i = a.length - 1; i >= 0; i--) {
		const row = lengths[i] as Uint32Array;
		const below = lengths[i + 1] as Uint32Array;
		for (let j = b.length - 1; j >= 0; j--) {
			row[j] = a[i] === b[j] ? (below[j + 1] as number) + 1 : Math.max(below[j] as number, row[j + 1] as number);
		}
	}
	const out: { kind: " " | "-" | "+"; text: string }[] = [];
	let i = 0;
	let j = 0;
	while (i < a.length || j < b.length) {
		if (i < a.length && j < b.length && a[i] === b[j]) {
			out.push({ kind: " ", text: a[i] as string });
			i++;
			j++;
		} else if (j < b.length && (i === a.length || (lengths[i + 1]?.[j] ?? 0) < (lengths[i]?.[j + 1] ?? 0))) {
			out.push({ kind: "+", text: b[j] as string });
			j++;
		} else {
			out.push({ kind: "-", text: a[i] as string });
			i++;
		}
	}
	return out;
}

/** Keeps `context` unchanged lines around changes; hunks get an @@ header with their line numbers. */
function withContext(lines: readonly { kind: " " | "-" | "+"; text: string }[], context: number): DiffLine[] {
	const keep = lines.map(() => false);
	lines.forEach((line, index) => {
		if (line.kind === " ") return;
		for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) keep[k] = true;
	});
	const out: DiffLine[] = [];
	let oldNo = 1;
	let newNo = 1;
	let hidden = 0;
	let inHunk = false;
	lines.forEach((line, index) => {
		if (keep[index]) {
			if (!inHunk) {
				if (hidden > 0 && out.length > 0) out.push({ kind: "…", hidden });
				out.push({ kind: "@", oldStart: oldNo, newStart: newNo });
			}
			hidden = 0;
			inHunk = true;
			out.push(line);
		} else {
			hidden++;
			inHunk = false;
		}
		if (line.kind !== "+") oldNo++;
		if (line.kind !== "-") newNo++;
	});
	return out;
}

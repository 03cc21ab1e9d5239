export interface DiffLine {
	kind: "same" | "add" | "remove";
	text: string;
}

/** Past this many lines a side, the diff is "all removed, all added" (the LCS table would be too big). */
const LCS_LIMIT = 600;

/** A line diff of `before` → `after` (longest common subsequence). */
export function diffLines(before: string, after: string): DiffLine[] {
	const a = before === "" ? [] : before.split("\n");
	const b = after === "" ? [] : after.split("\n");
	if (a.length > LCS_LIMIT || b.length > LCS_LIMIT) {
		return [
			...a.map((text) => ({ kind: "remove" as const, text })),
			...b.map((text) => ({ kind: "add" as const, text })),
		];
	}
	// lengths[i][j]: the LCS of a[i..] and b[j..].
	const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
	for (let i = a.length - 1; i >= 0; i--) {
		for (let j = b.length - 1; j >= 0; j--) {
			const row = lengths[i] as number[];
			row[j] =
				a[i] === b[j]
					? ((lengths[i + 1] as number[])[j + 1] as number) + 1
					: Math.max((lengths[i + 1] as number[])[j] as number, row[j + 1] as number);
		}
	}
	const out: DiffLine[] = [];
	let i = 0;
	let j = 0;
	while (i < a.length && j < b.length) {
		if (a[i] === b[j]) {
			out.push({ kind: "same", text: a[i] as string });
			i++;
			j++;
		} else if (((lengths[i + 1] as number[])[j] as number) >= ((lengths[i] as number[])[j + 1] as number)) {
			out.push({ kind: "remove", text: a[i++] as string });
		} else {
			out.push({ kind: "add", text: b[j++] as string });
		}
	}
	while (i < a.length) out.push({ kind: "remove", text: a[i++] as string });
	while (j < b.length) out.push({ kind: "add", text: b[j++] as string });
	return out;
}

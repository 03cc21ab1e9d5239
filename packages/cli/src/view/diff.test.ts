import { describe, expect, it } from "vitest";
import { lineDiff } from "./diff.js";

describe("lineDiff", () => {
	it("shows the changed lines with context and a hunk header with line numbers", () => {
		const before = ["a", "b", "c", "d", "e", "f", "g", "h"].join("\n");
		const after = ["a", "b", "c", "d", "E", "f", "g", "h"].join("\n");
		expect(lineDiff(before, after, 1)).toEqual([
			{ kind: "@", oldStart: 4, newStart: 4 },
			{ kind: " ", text: "d" },
			{ kind: "-", text: "e" },
			{ kind: "+", text: "E" },
			{ kind: " ", text: "f" },
		]);
	});

	it("a new file is all additions; identical texts have no lines", () => {
		expect(lineDiff("", "x\ny\n")).toEqual([
			{ kind: "@", oldStart: 1, newStart: 1 },
			{ kind: "+", text: "x" },
			{ kind: "+", text: "y" },
		]);
		expect(lineDiff("same\n", "same\n")).toEqual([]);
	});
});

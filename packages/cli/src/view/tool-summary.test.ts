import { describe, expect, it } from "vitest";
import { trimOutput } from "./tool-summary.js";

describe("a tool output trimmed to a few lines", () => {
	it("shows the first lines and the last ones, with how many are hidden between", () => {
		const output = `${Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join("\n")}\n[exit code 0]\n`;
		expect(trimOutput(output, 5, 80)).toEqual([
			"line 1",
			"line 2",
			"… 296 more lines",
			"line 299",
			"line 300",
			"[exit code 0]",
		]);
	});

	it("shows a short output whole, and hides no single line (its note would take a line too)", () => {
		expect(trimOutput("a\nb\nc\n", 5, 80)).toEqual(["a", "b", "c"]);
		expect(trimOutput("1\n2\n3\n4\n5\n6", 5, 80)).toEqual(["1", "2", "3", "4", "5", "6"]);
		expect(trimOutput("1\n2\n3\n4\n5\n6\n7", 5, 80)).toEqual(["1", "2", "… 2 more lines", "5", "6", "7"]);
	});

	it("cuts a long line to the width", () => {
		expect(trimOutput("x".repeat(100), 5, 10)).toEqual([`${"x".repeat(9)}…`]);
	});
});

import { describe, expect, it } from "vitest";
import { count, formatUsage } from "./usage-format.js";

describe("count", () => {
	it("groups digits in threes as en-US does, without ICU", () => {
		for (const n of [0, 7, 999, 1000, 1290, 18345, 1234567, 1000000000, -1234])
			expect(count(n)).toBe(n.toLocaleString("en-US"));
	});
});

describe("formatUsage", () => {
	it("names each count of a Task's usage, grouped", () => {
		expect(formatUsage({ input: 1234, output: 56, cacheRead: 1000, cacheWrite: 0, reasoning: 0, total: 1290 })).toBe(
			"input 1,234 · cached 1,000 · output 56 · total 1,290 tokens",
		);
	});
});

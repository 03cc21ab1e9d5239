import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_OUTPUT_LIMIT, limitOutput } from "../../src/tools/builtins/output-limit.js";
import { makeSandbox, type Sandbox } from "./sandbox.js";

let box: Sandbox;
beforeEach(() => {
	box = makeSandbox();
});
afterEach(() => box.cleanup());

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n");

describe("limitOutput", () => {
	it("leaves an output that fits alone and saves nothing", async () => {
		const { ctx } = box.context();
		const text = numbered(DEFAULT_OUTPUT_LIMIT.maxLines);
		expect(await limitOutput(text, ctx)).toBe(text);
		expect(existsSync(path.join(box.sessionDir, "tool-outputs"))).toBe(false);
	});

	it("keeps the first lines, says what was cut and saves the whole text under the Session's folder", async () => {
		const { ctx } = box.context("call_many");
		const text = numbered(18_345);
		const cut = await limitOutput(text, ctx);
		const saved = path.join(box.sessionDir, "tool-outputs", "call_many.txt");
		expect(
			cut.endsWith(
				`\n[output cut: showing the first 2,000 of 18,345 lines; the full output is in ${saved} (read_file reads it, with offset and limit)]`,
			),
		).toBe(true);
		expect(cut.startsWith("line 1\nline 2\n")).toBe(true);
		expect(cut).toContain("\nline 2000\n[output cut");
		expect(readFileSync(saved, "utf8")).toBe(text);
	});

	it("keeps the last lines when asked (a command's result is at its end)", async () => {
		const { ctx } = box.context();
		const cut = await limitOutput(numbered(2_500), ctx, "end");
		expect(cut).toMatch(
			/^\[output cut: showing the last 2,000 of 2,500 lines; the full output is in .*call_1\.txt \(read_file reads it, with offset and limit\)\]\nline 501\n/,
		);
		expect(cut.endsWith("line 2500")).toBe(true);
	});

	it("cuts by characters at a line break when lines are long", async () => {
		const { ctx } = box.context();
		const text = Array.from({ length: 100 }, () => "x".repeat(999)).join("\n");
		const cut = await limitOutput(text, ctx);
		const kept = cut.slice(0, cut.indexOf("\n[output cut"));
		expect(kept.length).toBeLessThanOrEqual(DEFAULT_OUTPUT_LIMIT.maxChars);
		expect(kept.split("\n").every((line) => line.length === 999)).toBe(true);
		expect(cut).toContain(`[output cut: showing the first 49,999 of 99,999 characters (50 of 100 lines); the full`);
	});

	it("cuts one huge line by characters", async () => {
		const { ctx } = box.context();
		const cut = await limitOutput("y".repeat(120_000), ctx);
		expect(cut).toContain("[output cut: showing the first 50,000 of 120,000 characters; the full output is in");
	});

	it("names the saved file after the call id, made safe for the file system", async () => {
		const { ctx } = box.context("../call/*?");
		const cut = await limitOutput(numbered(3_000), ctx);
		const saved = path.join(box.sessionDir, "tool-outputs", ".._call___.txt");
		expect(cut).toContain(saved);
		expect(existsSync(saved)).toBe(true);
	});
});

import { describe, expect, it } from "vitest";
import { lineCount } from "./pastes.js";

describe("lineCount", () => {
	it("counts lines as a person does: a closing line break ends the last line, it starts none", () => {
		expect(lineCount("one")).toBe(1);
		expect(lineCount("one\ntwo")).toBe(2);
		expect(lineCount("one\ntwo\n")).toBe(2);
		expect(lineCount("one\n\n")).toBe(2);
		expect(lineCount("")).toBe(1);
		expect(lineCount("\n")).toBe(1);
	});
});

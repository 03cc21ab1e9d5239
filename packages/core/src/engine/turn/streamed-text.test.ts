import { describe, expect, it } from "vitest";
import { StreamedText } from "./streamed-text.js";

describe("text streamed since its last complete message", () => {
	it("is its deltas joined; empty deltas are no text", () => {
		const text = new StreamedText();
		text.append("");
		expect(text.empty).toBe(true);
		text.append("ab");
		text.append("");
		text.append("c");
		expect(text.empty).toBe(false);
		expect(text.text).toBe("abc");
		expect(text.text).toBe("abc");
		text.clear();
		expect([text.empty, text.text]).toEqual([true, ""]);
	});
});

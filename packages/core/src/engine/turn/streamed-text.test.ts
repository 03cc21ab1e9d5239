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

	it("keeps every delta of a long stream in order, across its chunks and after a read", () => {
		const text = new StreamedText();
		const deltas = Array.from({ length: 1_300 }, (_, i) => `${i},`);
		for (const delta of deltas.slice(0, 700)) text.append(delta);
		expect(text.text).toBe(deltas.slice(0, 700).join(""));
		for (const delta of deltas.slice(700)) text.append(delta);
		expect(text.text).toBe(deltas.join(""));
		text.append("end");
		expect(text.text).toBe(`${deltas.join("")}end`);
	});
});

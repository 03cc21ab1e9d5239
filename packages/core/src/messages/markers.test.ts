import { describe, expect, it } from "vitest";
import { isMarker, parseMarkers, readMarker, writeMarker } from "./markers.js";

describe("system markers", () => {
	it("writes the square form and reads it back", () => {
		const text = writeMarker("user_steering", "stop and list the files");
		expect(text).toBe("[user_steering]stop and list the files[/user_steering]");
		expect(readMarker(text, "user_steering")).toBe("stop and list the files");
		expect(isMarker(text, "user_steering")).toBe(true);
	});

	it("round-trips bodies with newlines, brackets and the other form inside", () => {
		const body = "line 1\n[not a tag\n<summary>inner</summary>\n]";
		const text = writeMarker("context_summary", body);
		expect(readMarker(text, "context_summary")).toBe(body);
	});

	it("still reads the older angle-bracket form", () => {
		const text = "<summary>the goal was X</summary>";
		expect(readMarker(text, "summary")).toBe("the goal was X");
		expect(parseMarkers(text)[0]?.form).toBe("angle");
		expect(isMarker(`  ${text}\n`, "summary")).toBe(true);
	});

	it("finds a block inside surrounding text, in either form", () => {
		expect(readMarker("Here it is: [summary]S1[/summary] done", "summary")).toBe("S1");
		expect(readMarker("Here it is: <summary>S2</summary> done", "summary")).toBe("S2");
		expect(isMarker("Here it is: [summary]S1[/summary]", "summary")).toBe(false);
	});

	it("treats an unclosed or mismatched block as plain text", () => {
		expect(readMarker("[summary]never closed", "summary")).toBeUndefined();
		expect(readMarker("[summary]wrong close</summary>", "summary")).toBeUndefined();
		expect(parseMarkers("plain text")).toEqual([]);
	});

	it("lists several blocks in order with their offsets", () => {
		const text = `${writeMarker("turn_aborted", "a")} and <turn_retried>b</turn_retried>`;
		const blocks = parseMarkers(text);
		expect(blocks.map((b) => [b.tag, b.body, b.form])).toEqual([
			["turn_aborted", "a", "square"],
			["turn_retried", "b", "angle"],
		]);
		expect(text.slice(blocks[1]!.start, blocks[1]!.end)).toBe("<turn_retried>b</turn_retried>");
	});

	it("refuses a tag that could not be read back", () => {
		expect(() => writeMarker("Bad Tag", "x")).toThrow(/marker tag "Bad Tag"/);
	});
});

import { describe, expect, it } from "vitest";
import { splitInvisible } from "./escape-invisible.js";

const shown = (text: string) => splitInvisible(text).map((p) => (p.kind === "text" ? p.text : `[${p.text}]`));

describe("invisible characters, shown escaped", () => {
	it("escapes bidi overrides and isolates, zero-width and control characters; keeps line feeds and tabs", () => {
		expect(shown("a\u202eb\u2066c\u200bd\u0007e\r\u0000")).toEqual([
			"a",
			"[\\u202e]",
			"b",
			"[\\u2066]",
			"c",
			"[\\u200b]",
			"d",
			"[\\u0007]",
			"e",
			"[\\u000d]",
			"[\\u0000]",
		]);
		expect(shown("ls\n\tx")).toEqual(["ls\n\tx"]);
		expect(shown("")).toEqual([]);
		expect(shown("héllo — ünïcode ✓")).toEqual(["héllo — ünïcode ✓"]);
	});
});

import { describe, expect, it } from "vitest";
import { showInvisible } from "./visible-text.js";

describe("showInvisible", () => {
	it("escapes what a terminal would apply or hide, and leaves ordinary text (accents, emoji, CJK) alone", () => {
		expect(showInvisible("a\x1b[2Jb\rc\td\x07\x7f\u009b")).toBe("a\\u001b[2Jb\\rc\\td\\u0007\\u007f\\u009b");
		expect(showInvisible("x\u202ey\u2066z\u200bw\ufeff")).toBe("x\\u202ey\\u2066z\\u200bw\\ufeff");
		expect(showInvisible("café 🚀 日本 — ok")).toBe("café 🚀 日本 — ok");
	});
});

import { describe, expect, it } from "vitest";
import { tokenFrom } from "./token.js";

describe("what a person pastes into the token field", () => {
	it("the token, or the URL omniloop serve printed (fragment or old query)", () => {
		expect(tokenFrom("  abc_DEF-123  ")).toBe("abc_DEF-123");
		expect(tokenFrom("http://127.0.0.1:4317/#token=abc")).toBe("abc");
		expect(tokenFrom("http://127.0.0.1:4317/?token=a%2Bb&x=1")).toBe("a+b");
		expect(tokenFrom("#token=xyz")).toBe("xyz");
	});

	it("nothing usable is undefined", () => {
		expect(tokenFrom("")).toBeUndefined();
		expect(tokenFrom("   ")).toBeUndefined();
		expect(tokenFrom("http://127.0.0.1:4317/#token=")).toBeUndefined();
		expect(tokenFrom("two words")).toBeUndefined();
	});
});

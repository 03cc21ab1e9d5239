import { describe, expect, it } from "vitest";
import { titleOf } from "./session-title.js";

describe("titleOf", () => {
	it("is the Session's title, or Untitled Session when it has none or a blank one", () => {
		expect(titleOf({ title: "Trip to Lisbon" })).toBe("Trip to Lisbon");
		expect(titleOf({ title: null })).toBe("Untitled Session");
		expect(titleOf({ title: "" })).toBe("Untitled Session");
		expect(titleOf({ title: "   " })).toBe("Untitled Session");
		expect(titleOf(undefined)).toBe("Untitled Session");
	});
});

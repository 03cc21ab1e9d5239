import { writeMarker } from "@omniloop/core/internal";
import { describe, expect, it } from "vitest";
import { personMessageLabel } from "./file-commands.js";

describe("a message in the /rewind and /fork pickers", () => {
	it("is its first line, cut to 70 characters", () => {
		expect(personMessageLabel({ text: "fix the bug\nin parser.ts" })).toBe("fix the bug");
		expect(personMessageLabel({ text: "x".repeat(100) })).toBe(`${"x".repeat(69)}…`);
	});

	it("a steer is labelled so, without its [user_steering] tags", () => {
		expect(personMessageLabel({ text: "[user_steering]emoji[/user_steering]" })).toBe("(steer) emoji");
		expect(personMessageLabel({ text: writeMarker("user_steering", "use tabs"), steer: "use tabs" })).toBe(
			"(steer) use tabs",
		);
	});

	it("other markers are shown without their tags", () => {
		expect(personMessageLabel({ text: "[turn_aborted]the turn was cut[/turn_aborted] go on" })).toBe(
			"the turn was cut go on",
		);
	});
});

import { describe, expect, it } from "vitest";
import { sinceText } from "./when.js";

const at = (text: string) => new Date(text).getTime();

describe("sinceText", () => {
	const now = at("2026-06-15T15:30:00");
	it("is relative while recent", () => {
		expect(sinceText(now - 20_000, now)).toBe("just now");
		expect(sinceText(now + 5_000, now)).toBe("just now");
		expect(sinceText(now - 5 * 60_000, now)).toBe("5 min ago");
		expect(sinceText(at("2026-06-15T12:10:00"), now)).toBe("3 h ago");
	});
	it("says yesterday for the day before, even under 24 hours ago", () => {
		expect(sinceText(at("2026-06-14T23:00:00"), now)).toBe("yesterday");
		expect(sinceText(at("2026-06-14T08:00:00"), now)).toBe("yesterday");
	});
	it("gives a date past yesterday, with the year only in another year", () => {
		expect(sinceText(at("2026-03-04T10:00:00"), now)).toBe("Mar 4");
		expect(sinceText(at("2025-03-04T10:00:00"), now)).toBe("Mar 4, 2025");
	});
});

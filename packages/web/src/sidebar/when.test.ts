import { describe, expect, it } from "vitest";
import { lastActiveText, sinceText } from "./when.js";

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

describe("lastActiveText", () => {
	const now = at("2026-06-15T15:30:00");
	const updatedAt = now - 10 * 60_000;
	it("is now while a Task runs or waits for a person, whenever the last one ended", () => {
		expect(lastActiveText({ status: "busy", updatedAt }, now)).toBe("now");
		expect(lastActiveText({ status: "waiting_approval", updatedAt }, now)).toBe("now");
	});
	it("is when the last Task ended once the Session is idle", () => {
		expect(lastActiveText({ status: "idle", updatedAt }, now)).toBe("10 min ago");
	});
});

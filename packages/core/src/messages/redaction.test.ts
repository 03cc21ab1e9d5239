import { describe, expect, it } from "vitest";
import { makeMessage } from "./constructors.js";
import { REDACTED, redactor } from "./redaction.js";

describe("redactor", () => {
	const key = "sk-ant-api03-abcdefgh";
	const redact = redactor([key, `${key}-longer-one`, "short"]);

	it("returns the very message when no value occurs in it", () => {
		const message = makeMessage("assistant_text", { text: "nothing secret, short or not" });
		expect(redact(message)).toBe(message);
	});

	it("copies a message that holds a value, replacing it at any depth, and leaves the original alone", () => {
		const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 2 };
		const message = makeMessage("done", {
			reason: "error",
			usage,
			sessionUsage: usage,
			error: { kind: "auth", message: `401: bad key ${key}-longer-one and ${key}` },
		});
		const redacted = redact(message);
		expect(redacted).not.toBe(message);
		expect(redacted).toEqual({
			...message,
			error: { kind: "auth", message: `401: bad key ${REDACTED} and ${REDACTED}` },
		});
		expect(message.type === "done" && message.error?.message).toContain(key);
		expect(redacted.type === "done" && redacted.usage).toBe(message.type === "done" && message.usage);
	});

	it("ignores values too short to be credentials", () => {
		const message = makeMessage("assistant_text", { text: "a short word" });
		expect(redact(message)).toBe(message);
	});
});

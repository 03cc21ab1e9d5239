import { describe, expect, it } from "vitest";
import { makeMessage } from "./constructors.js";
import type { PartialText } from "./omni-message.js";
import { PartialRedaction, REDACTED, redactor } from "./redaction.js";

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

	it("fragments: a key split over deltas never goes out whole or in pieces; what was held back goes out before the message", () => {
		const fragments = new PartialRedaction([key]);
		const delta = (text: string): PartialText => ({ id: "m1", ts: 0, seq: 0, type: "partial_text", delta: text });
		const out: string[] = [];
		for (const piece of ["the key: sk-", "ant-api03", "-abcdefgh, and sk-a"]) {
			const passed = fragments.pass(delta(piece));
			if (passed?.type === "partial_text") out.push(passed.delta);
		}
		const held = fragments.release("m1");
		if (held?.type === "partial_text") out.push(held.delta);
		expect(out.join("")).toBe(`the key: ${REDACTED}, and sk-a`);
		expect(out.some((piece) => piece.includes("ant-api03"))).toBe(false);
		expect(fragments.release("m1")).toBeUndefined();
	});
});

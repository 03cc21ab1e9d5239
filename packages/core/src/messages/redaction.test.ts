import fc from "fast-check";
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

	it("a value of several lines is redacted line by line where its lines come apart (a diff, grep's output)", () => {
		const pem =
			"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\nAQEFAASCBKcwggSjAgEAAoIB\n          \nend\n-----END PRIVATE KEY-----";
		const diff = `--- a/key.pem\n+++ b/key.pem\n@@ -0,0 +1,5 @@\n${pem
			.split("\n")
			.map((line) => `+${line}`)
			.join("\n")}`;
		const message = makeMessage("assistant_text", { text: `${diff}\nkeys/key.pem:2:${pem.split("\n")[1]}` });
		const text = (redactor([pem])(message) as typeof message).text;
		for (const line of ["MIIEvQIBADANBgkqhkiG9w0B", "AQEFAASCBKcwggSjAgEAAoIB"]) expect(text).not.toContain(line);
		expect(text).toContain(`keys/key.pem:2:${REDACTED}`);
		// Armor, blank indentation and short lines occur in ordinary text: they are no secret on their own.
		expect(text).toContain("+-----BEGIN PRIVATE KEY-----\n");
		expect(text).toContain("+end\n");
		const code = makeMessage("assistant_text", {
			text: 'if (pem.startsWith("-----BEGIN PRIVATE KEY-----")) {\n          return 1;',
		});
		expect(redactor([pem])(code)).toBe(code);
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

	it("fragments: a call's fragments carry its id and name redacted, as its complete tool_call does (the model chooses both)", () => {
		const fragments = new PartialRedaction([key]);
		const passed = fragments.pass({
			id: "m1",
			ts: 0,
			seq: 0,
			type: "partial_tool_call",
			callId: `call_${key}`,
			name: `tool_${key}`,
			delta: '{"a":1}',
		});
		expect(passed).toMatchObject({ callId: `call_${REDACTED}`, name: `tool_${REDACTED}`, delta: '{"a":1}' });
	});

	/** What the fragments of `pieces` add up to, the held-back tail released last as the message comes. */
	const streamed = (fragments: PartialRedaction, pieces: readonly string[]): string[] => {
		const out: string[] = [];
		for (const piece of pieces) {
			const passed = fragments.pass({ id: "m1", ts: 0, seq: 0, type: "partial_text", delta: piece });
			if (passed?.type === "partial_text") out.push(passed.delta);
		}
		const held = fragments.release("m1");
		if (held?.type === "partial_text") out.push(held.delta);
		return out;
	};

	it("fragments: a key that begins with a shorter key goes whole, not as the short one and the rest", () => {
		const out = streamed(new PartialRedaction([key, `${key}-longer-one`]), ["bad key ", key, "-longer-one", " there"]);
		expect(out.join("")).toBe(`bad key ${REDACTED} there`);
		expect(out.some((piece) => piece.includes("longer"))).toBe(false);
	});

	it("fragments: however a text is cut into deltas, they add up to the redacted message", () => {
		const keys = [key, `${key}-longer-one`, "abcdefgh", "ghijklmnop", "sk-proj-12345678"];
		const redact = redactor(keys);
		const words = [...keys, "sk-", "sk-ant", "abc", "ghij", "-longer", " ", "plain text", "s", "k"];
		fc.assert(
			fc.property(
				fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 12 }),
				fc.array(fc.nat(), { maxLength: 8 }),
				(parts, cuts) => {
					const text = parts.join("");
					const at = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
					const pieces = [0, ...at].map((start, index) => text.slice(start, [...at, text.length][index]));
					const whole = redact(makeMessage("assistant_text", { text }));
					expect(streamed(new PartialRedaction(keys), pieces).join("")).toBe(
						whole.type === "assistant_text" ? whole.text : "",
					);
				},
			),
		);
	});
});

describe("a value with characters JSON escapes (a tool call's arguments are JSON text)", () => {
	const password = 'Tr0ub4dor&"3\\x';
	const args = JSON.stringify({ user: "me", password });

	it("is redacted in a complete tool_call's arguments, where it is written escaped", () => {
		const message = makeMessage("tool_call", { callId: "c1", name: "login", arguments: args });
		const redacted = redactor([password])(message);
		expect(redacted).toMatchObject({ arguments: `{"user":"me","password":"${REDACTED}"}` });
		expect(JSON.stringify(redacted)).not.toContain("Tr0ub4dor");
	});

	it("is redacted in a call's fragments, however the arguments are cut (inside an escape too)", () => {
		const whole = `{"user":"me","password":"${REDACTED}"}`;
		fc.assert(
			fc.property(fc.array(fc.nat(), { maxLength: 8 }), (cuts) => {
				const at = [...new Set(cuts.map((cut) => cut % (args.length + 1)))].sort((a, b) => a - b);
				const pieces = [0, ...at].map((start, index) => args.slice(start, [...at, args.length][index]));
				const fragments = new PartialRedaction([password]);
				const out: string[] = [];
				for (const delta of pieces) {
					const passed = fragments.pass({
						id: "m1",
						ts: 0,
						seq: 0,
						type: "partial_tool_call",
						callId: "c1",
						name: "login",
						delta,
					});
					if (passed?.type === "partial_tool_call") out.push(passed.delta);
				}
				const held = fragments.release("m1");
				if (held?.type === "partial_tool_call") out.push(held.delta);
				expect(out.join("")).toBe(whole);
				expect(out.some((piece) => piece.includes("Tr0ub4dor"))).toBe(false);
			}),
		);
	});

	it("is redacted where it is escaped twice: JSON written into a file through a call's arguments", () => {
		const file = JSON.stringify({ db: { password } });
		const message = makeMessage("tool_call", {
			callId: "c2",
			name: "write_file",
			arguments: JSON.stringify({ path: "config.json", content: file }),
		});
		expect(JSON.stringify(redactor([password])(message))).not.toContain("Tr0ub4dor");
	});

	it("is still redacted as itself in plain text", () => {
		const message = makeMessage("assistant_text", { text: `it is ${password}.` });
		expect(redactor([password])(message)).toMatchObject({ text: `it is ${REDACTED}.` });
	});
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assistantText, toolCall, toolCallOutput, userText } from "../messages/constructors.js";
import type { ModelMessage } from "../messages/omni-message.js";
import { ensurePairing, IncrementalPairing, isCanonical, MISSING_OUTPUT, repairPairing } from "./pairing.js";

const describeAll = (messages: ModelMessage[]) =>
	messages.map((m) => (m.type === "tool_call" || m.type === "tool_call_output" ? `${m.type}:${m.callId}` : m.type));

describe("pairing: each tool_call has exactly one output after it, and no output lacks its call", () => {
	const a = toolCall("a", "t");
	const b = toolCall("b", "t");
	const outA = toolCallOutput(a, "A");
	const outB = toolCallOutput(b, "B");

	it("leaves a well-paired context untouched (the same array, no repairs)", () => {
		const messages = [userText("go"), assistantText("ok"), a, b, outA, outB, userText("more"), assistantText("done")];
		const result = ensurePairing(messages);
		expect(result.repairs).toEqual([]);
		expect(result.messages).toBe(messages);
	});

	it("gives a call with no output a placeholder, right after its group", () => {
		const result = ensurePairing([userText("go"), a, b, outA, userText("next")]);
		expect(result.repairs).toEqual([{ kind: "missing_output", callId: "b", name: "t" }]);
		expect(describeAll(result.messages)).toEqual([
			"user_text",
			"tool_call:a",
			"tool_call:b",
			"tool_call_output:a",
			"tool_call_output:b",
			"user_text",
		]);
		expect(result.messages[4]).toMatchObject({ status: "interrupted", output: MISSING_OUTPUT });
	});

	it("drops an output whose call is not before it", () => {
		const result = ensurePairing([userText("go"), outA, assistantText("hi")]);
		expect(result.repairs).toEqual([{ kind: "orphan_output", callId: "a" }]);
		expect(describeAll(result.messages)).toEqual(["user_text", "assistant_text"]);
	});

	it("drops a second output for the same call and a repeated call id", () => {
		const result = ensurePairing([a, outA, toolCallOutput(a, "again"), toolCall("a", "t")]);
		expect(result.repairs.map((r) => r.kind).sort()).toEqual(["duplicate_call", "duplicate_output"]);
		expect(describeAll(result.messages)).toEqual(["tool_call:a", "tool_call_output:a"]);
	});

	it("puts outputs written in completion order back in call order", () => {
		const result = ensurePairing([a, b, outB, outA, userText("x")]);
		expect(result.repairs).toEqual([{ kind: "reordered" }]);
		expect(describeAll(result.messages)).toEqual([
			"tool_call:a",
			"tool_call:b",
			"tool_call_output:a",
			"tool_call_output:b",
			"user_text",
		]);
	});

	it("keeps consecutive turns apart: a new assistant run after outputs starts a new group", () => {
		const c = toolCall("c", "t");
		const messages = [a, outA, assistantText("then"), c, toolCallOutput(c, "C")];
		expect(ensurePairing(messages).repairs).toEqual([]);
	});
});

describe("the quick check of a canonical context", () => {
	it("says canonical exactly when the long way finds nothing to repair (random contexts, from any point)", () => {
		const calls = ["a", "b", "c"].map((id) => toolCall(id, "t"));
		const pieces: ModelMessage[] = [
			userText("u"),
			assistantText("t"),
			...calls,
			...calls.map((call) => toolCallOutput(call, "out")),
		];
		const answers = { canonical: 0, not: 0 };
		fc.assert(
			fc.property(
				fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 10 }),
				fc.nat(),
				(messages, start) => {
					const from = start % messages.length;
					const expected = repairPairing(messages.slice(from)).repairs.length === 0;
					answers[expected ? "canonical" : "not"]++;
					return isCanonical(messages, from) === expected;
				},
			),
			{ numRuns: 20_000, seed: 16 },
		);
		// Both answers came up often enough to mean something.
		expect(answers.canonical).toBeGreaterThan(1_000);
		expect(answers.not).toBeGreaterThan(1_000);
	});
});

describe("the incremental pairing check", () => {
	it("checks only what was added since the last check, and still finds a problem there", () => {
		const check = new IncrementalPairing();
		const a = toolCall("a", "t");
		const context: ModelMessage[] = [userText("go"), a, toolCallOutput(a, "A")];
		expect(check.run(context)).toEqual({ messages: context, repairs: [] });
		const b = toolCall("b", "t");
		context.push(assistantText("more"), b, userText("next"));
		const result = check.run(context);
		expect(result.repairs).toEqual([{ kind: "missing_output", callId: "b", name: "t" }]);
		expect(describeAll(result.messages)).toEqual([
			"user_text",
			"tool_call:a",
			"tool_call_output:a",
			"assistant_text",
			"tool_call:b",
			"tool_call_output:b",
			"user_text",
		]);
	});

	it("flags an output in the new part whose call is in the part already checked", () => {
		const check = new IncrementalPairing();
		const a = toolCall("a", "t");
		const context: ModelMessage[] = [userText("go"), a, toolCallOutput(a, "A")];
		check.run(context);
		context.push(toolCallOutput(a, "again"));
		expect(check.run(context).repairs).toEqual([{ kind: "orphan_output", callId: "a" }]);
	});

	it("checks a replaced context whole", () => {
		const check = new IncrementalPairing();
		check.run([userText("old")]);
		const a = toolCall("a", "t");
		expect(check.run([a]).repairs).toEqual([{ kind: "missing_output", callId: "a", name: "t" }]);
	});
});

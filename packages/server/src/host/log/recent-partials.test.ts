import type { OmniMessage, Origin, PartialMessage } from "@omniloop/core";
import { makeMessage } from "@omniloop/core/internal";
import { describe, expect, it } from "vitest";
import { RecentPartials } from "./recent-partials.js";
import { RecentWindow } from "./recent-window.js";

const origin: Origin = { sessionId: "s2", agentId: "helper", parentCallId: "c0" };

/** A Task's stream: text deltas, two tool calls whose argument deltas interleave, a forwarded subagent's deltas, and complete messages between. */
function stream(): OmniMessage[] {
	const text = makeMessage("assistant_text", { text: "abc" });
	const messages: OmniMessage[] = [makeMessage("request_begin", { turn: 1, attempt: 0 })];
	for (const delta of ["a", "b", "c"]) messages.push({ ...makeMessage("partial_text", { delta }), id: text.id });
	messages.push(text);
	const [one, two] = ["c1", "c2"].map((callId) => makeMessage("tool_call", { callId, name: "shell", arguments: "{}" }));
	for (const delta of ["{", "}"]) {
		for (const call of [one, two]) {
			if (call?.type !== "tool_call") continue;
			messages.push({
				...makeMessage("partial_tool_call", { callId: call.callId, name: call.name, delta }),
				id: call.id,
			});
		}
	}
	messages.push(one as OmniMessage, two as OmniMessage);
	const forwarded = makeMessage("partial_reasoning", { delta: "" }).id;
	for (const delta of ["x", "y"])
		messages.push({ ...makeMessage("partial_reasoning", { delta }), id: forwarded, origin });
	messages.forEach((message, index) => {
		message.seq = 10 + index;
		message.ts = 1_700_000_000_000 + index;
	});
	return messages;
}

describe("RecentPartials", () => {
	it("gives back every partial as it was emitted, interleaved messages and forwarded ones too", () => {
		const partials = new RecentPartials();
		const emitted = stream().filter((m): m is PartialMessage => m.type.startsWith("partial_"));
		for (const message of emitted) partials.add(message);
		const back = emitted.map((_, index) => partials.messageAt(index));
		expect(back).toEqual(emitted);
		expect(back.map((m) => JSON.stringify(m))).toEqual(emitted.map((m) => JSON.stringify(m)));
		expect(partials.indexAfter(emitted[3]?.seq as number)).toBe(4);
	});

	it("gives back partials across its chunks: a long Task's, from any point", () => {
		const partials = new RecentPartials();
		const text = makeMessage("assistant_text", { text: "" });
		// Seqs with gaps (other messages between), more partials than two chunks hold.
		const emitted = Array.from({ length: 300 }, (_, index) => ({
			...makeMessage("partial_text", { delta: `d${index}` }),
			id: text.id,
			seq: 5 + index * 2,
			ts: 1_700_000_000_000 + index,
		}));
		for (const message of emitted) partials.add(message);
		expect(partials.length).toBe(300);
		expect(emitted.map((_, index) => partials.messageAt(index))).toEqual(emitted);
		for (const index of [0, 127, 128, 255, 256, 299]) {
			const seq = emitted[index]?.seq as number;
			expect(partials.seqAt(index)).toBe(seq);
			expect(partials.indexAfter(seq)).toBe(index + 1);
			expect(partials.indexAfter(seq - 1)).toBe(index);
		}
		partials.clear();
		expect(partials.length).toBe(0);
		partials.add(emitted[7] as PartialMessage);
		expect(partials.messageAt(0)).toEqual(emitted[7]);
	});

	it("keeps apart two messages that share an id but not their other fields", () => {
		const partials = new RecentPartials();
		const first = { ...makeMessage("partial_tool_call", { callId: "c1", name: "shell", delta: "{" }), seq: 1 };
		const second = { ...first, callId: "c2", name: "read_file", delta: "}", seq: 2, ts: first.ts + 1 };
		partials.add(first);
		partials.add(second);
		expect(partials.messageAt(1)).toEqual(second);
	});
});

describe("RecentWindow with a running Task's partials", () => {
	it("replays complete messages and partials in seq order, from any point, and leaves partials out of the history", () => {
		const window = new RecentWindow();
		window.beginTask();
		const messages = stream();
		for (const message of messages) window.add(message);
		expect(window.firstSeq).toBe(10);
		for (let after = 9; after <= 10 + messages.length; after++) {
			expect(window.after(after)).toEqual(messages.filter((m) => m.seq > after));
			expect(window.after(after, false)).toEqual(
				messages.filter((m) => m.seq > after && !m.type.startsWith("partial_")),
			);
		}
		window.endTask();
		expect(window.after(0).some((m) => m.type.startsWith("partial_"))).toBe(false);
	});

	it("knows its oldest seq when a partial is older than every complete message", () => {
		const window = new RecentWindow();
		window.beginTask();
		const [, ...fromPartial] = stream();
		for (const message of fromPartial) window.add(message);
		expect(window.firstSeq).toBe(11);
		window.endTask();
		expect(window.firstSeq).toBe(14);
	});
});

import type { OmniMessage } from "@omniloop/client";
import { describe, expect, it } from "vitest";
import { applyMessages, dropDeadPending } from "./apply.js";
import { EMPTY_TRANSCRIPT, type ToolItem } from "./model.js";

let seq = 0;
const m = (message: Record<string, unknown> & { type: OmniMessage["type"] }): OmniMessage =>
	({ id: `m${++seq}`, ts: 1000, seq, ...message }) as OmniMessage;

describe("applyMessages", () => {
	it("skips messages at or below the last seq: a resumed stream that overlaps shows nothing twice", () => {
		seq = 0;
		const first = [
			m({ type: "user_text", text: "hi" }),
			m({ type: "partial_text", id: "a1", delta: "Hel" }),
			m({ type: "partial_text", id: "a1", delta: "lo" }),
		];
		const once = applyMessages(EMPTY_TRANSCRIPT, first);
		const again = applyMessages(once, [...first, m({ type: "partial_text", id: "a1", delta: "!" })]);
		expect(again.order).toEqual(["m1", "a1"]);
		expect(again.items.a1).toMatchObject({ text: "Hello!", streaming: true });
		const done = applyMessages(again, [m({ type: "assistant_text", id: "a1", text: "Hello!" })]);
		expect(done.items.a1).toMatchObject({ text: "Hello!", streaming: false });
		// Unchanged items are the same objects (React skips them).
		expect(done.items.m1).toBe(once.items.m1);
	});

	it("a Task stopped or failed mid-answer keeps the cut-off text in sight, marked stopped (no answer of the history)", () => {
		for (const reason of ["user_abort", "error"] as const) {
			seq = 0;
			const t = applyMessages(EMPTY_TRANSCRIPT, [
				m({ type: "user_text", text: "hi" }),
				m({ type: "request_begin", turn: 1, attempt: 0 }),
				m({ type: "partial_reasoning", id: "r", delta: "Thinking about" }),
				m({ type: "partial_text", id: "cut", delta: "The answer is forty" }),
				m({ type: "done", reason }),
			]);
			expect(t.items.cut).toMatchObject({ text: "The answer is forty", streaming: false, stopped: true });
			expect(t.items.r).toMatchObject({ streaming: false, stopped: true });
			expect(t.running).toBe(false);
		}
		// A Task that ended on its own: what it said is its answer.
		seq = 0;
		const whole = applyMessages(EMPTY_TRANSCRIPT, [
			m({ type: "user_text", text: "hi" }),
			m({ type: "partial_text", id: "a", delta: "All done." }),
			m({ type: "assistant_text", id: "a", text: "All done." }),
			m({ type: "done", reason: "model_stop" }),
		]);
		expect(whole.items.a).toMatchObject({ streaming: false });
		expect(whole.items.a).not.toHaveProperty("stopped");
	});

	it("a failed attempt's cut-off answer goes when its retry is announced: the answer shows once, as a reload shows it", () => {
		seq = 0;
		const t = applyMessages(EMPTY_TRANSCRIPT, [
			m({ type: "user_text", text: "hi" }),
			m({ type: "request_begin", turn: 1, attempt: 0 }),
			m({ type: "partial_text", id: "cut", delta: "The answer is forty" }),
			m({ type: "request_end", status: "timeout", retry_in_ms: 250, attempt: 1 }),
			m({ type: "request_begin", turn: 1, attempt: 1 }),
			m({ type: "partial_text", id: "whole", delta: "The answer is 42." }),
			m({ type: "assistant_text", id: "whole", text: "The answer is 42." }),
		]);
		expect(t.items.cut).toBeUndefined();
		expect(t.order.map((key) => t.items[key]?.kind)).toEqual(["user", "assistant"]);
		expect(t.items.whole).toMatchObject({ text: "The answer is 42.", streaming: false });
	});

	it("a note of the engine's and a subagent's Task are not a person's messages", () => {
		seq = 0;
		const t = applyMessages(EMPTY_TRANSCRIPT, [
			m({ type: "user_text", text: "[context_summary]We planned a trip.[/context_summary]" }),
			m({ type: "tool_call", callId: "c1", name: "agent__helper", arguments: "{}" }),
			m({
				type: "user_text",
				text: "count the notes",
				origin: { sessionId: "sub", agentId: "helper", parentCallId: "c1" },
			}),
			m({ type: "user_text", text: "go on" }),
			m({ type: "user_text", text: "[x]a[/x] and [x]b[/x]" }),
			m({ type: "user_text", text: "<context_summary>Older form.</context_summary>" }),
		]);
		expect(t.items.m5).not.toHaveProperty("note");
		expect(t.items.m6).toMatchObject({ note: "context_summary", text: "Older form." });
		expect(t.items.m1).toMatchObject({ kind: "user", note: "context_summary", text: "We planned a trip." });
		expect(t.items.m3).toMatchObject({ kind: "user", delegated: true, text: "count the notes" });
		expect(t.items.m4).toMatchObject({ kind: "user", text: "go on" });
		expect(t.items.m4).not.toHaveProperty("note");
		expect(t.items.m4).not.toHaveProperty("delegated");
	});

	it("follows a tool call through approval to its output, and clears the pending approval", () => {
		seq = 0;
		const t = applyMessages(EMPTY_TRANSCRIPT, [
			m({ type: "tool_call", callId: "c1", name: "shell", arguments: '{"command":"ls"}' }),
			m({ type: "confirmation_required", correlationId: "k1", callId: "c1", name: "shell", arguments: "{}" }),
		]);
		expect(t.pending).toHaveLength(1);
		expect((t.items["tool::c1"] as ToolItem).state).toBe("awaiting_approval");
		const after = applyMessages(t, [
			m({ type: "approval_decision", callId: "c1", name: "shell", decision: "allow", by: "user", correlationId: "k1" }),
			m({ type: "tool_start", callId: "c1", name: "shell" }),
			m({ type: "tool_call_output", callId: "c1", name: "shell", output: "a.txt", status: "ok" }),
		]);
		expect(after.pending).toEqual([]);
		expect(after.items["tool::c1"]).toMatchObject({ state: "ok", output: "a.txt" });
	});

	it("nests a subagent's messages under the call that started it, by origin", () => {
		seq = 0;
		const origin = { sessionId: "sub", agentId: "helper", parentCallId: "c1" };
		const t = applyMessages(EMPTY_TRANSCRIPT, [
			m({ type: "tool_call", callId: "c1", name: "researcher", arguments: "{}" }),
			m({ type: "assistant_text", id: "s1", text: "found it", origin }),
			m({ type: "tool_call", callId: "c9", name: "grep", arguments: "{}", origin }),
		]);
		expect(t.order).toEqual(["tool::c1"]);
		expect((t.items["tool::c1"] as ToolItem).children).toEqual(["s1", "tool:sub:c9"]);
	});

	it("a reconnect wait counts down from the message's time; the next request clears it; steers are marked", () => {
		seq = 0;
		const t = applyMessages(EMPTY_TRANSCRIPT, [
			m({ type: "user_text", text: "[user_steering]use tabs[/user_steering]", steer: "use tabs" }),
			m({ type: "request_end", status: "timeout", retry_in_ms: 500, attempt: 2 }),
		]);
		expect(t.retry).toEqual({ at: 1500, attempt: 2, status: "timeout" });
		expect(t.items.m1).toMatchObject({ kind: "user", text: "use tabs", steer: true });
		expect(applyMessages(t, [m({ type: "request_begin", turn: 1, attempt: 2 })]).retry).toBeUndefined();
	});

	it("a rewind drops the items from its seq on (as the context dropped them); a checkpoint is an item that can be undone", () => {
		seq = 0;
		const t = applyMessages(EMPTY_TRANSCRIPT, [
			m({ type: "user_text", text: "first" }),
			m({ type: "assistant_text", text: "one" }),
			m({ type: "user_text", text: "second" }),
			m({ type: "checkpoint_created", checkpointId: "c1", reason: "turn", skipped: [] }),
			m({ type: "assistant_text", text: "two" }),
		]);
		expect(t.order).toEqual(["m1", "m2", "m3", "m4", "m5"]);
		expect(t.items.m4).toMatchObject({ kind: "checkpoint", checkpointId: "c1" });
		expect(t.items.m3).toMatchObject({ kind: "user", seq: 3 });
		const rewound = applyMessages(t, [m({ type: "session_rewound", toSeq: 3 })]);
		expect(rewound.order).toEqual(["m1", "m2", "m6"]);
		expect(t.order).toHaveLength(5);
		const next = applyMessages(rewound, [m({ type: "user_text", text: "again" })]);
		expect(next.order).toEqual(["m1", "m2", "m6", "m7"]);
	});

	it("a question left open by a Task that ended with no `done` (a crash) goes when the next Task starts", () => {
		seq = 0;
		const crashed = applyMessages(EMPTY_TRANSCRIPT, [
			m({ type: "user_text", text: "run ls" }),
			m({ type: "tool_call", callId: "c1", name: "shell", arguments: "{}" }),
			m({ type: "confirmation_required", correlationId: "k1", callId: "c1", name: "shell", arguments: "{}" }),
		]);
		expect(crashed.pending.map((p) => p.correlationId)).toEqual(["k1"]);
		const next = applyMessages(crashed, [
			m({ type: "user_text", text: "run pwd" }),
			m({ type: "request_begin", turn: 1, attempt: 0 }),
			m({ type: "tool_call", callId: "c2", name: "shell", arguments: "{}" }),
			m({ type: "confirmation_required", correlationId: "k2", callId: "c2", name: "shell", arguments: "{}" }),
		]);
		expect(next.pending.map((p) => p.correlationId)).toEqual(["k2"]);
		expect(next.items["tool::c1"]).toMatchObject({ state: "interrupted" });
		expect(next.items["tool::c2"]).toMatchObject({ state: "awaiting_approval" });
		// A steer or a subagent's prompt is no new Task: the question stays.
		const steered = applyMessages(next, [
			m({ type: "user_text", text: "[user_steering]x[/user_steering]", steer: "x" }),
			m({ type: "user_text", text: "go", origin: { sessionId: "sub", agentId: "helper", parentCallId: "c2" } }),
		]);
		expect(steered.pending.map((p) => p.correlationId)).toEqual(["k2"]);
	});

	it("drops the questions the server no longer lists, but none asked after the tab asked it, and one answered already", () => {
		seq = 0;
		const t = applyMessages(EMPTY_TRANSCRIPT, [
			m({ type: "user_text", text: "go" }),
			m({ type: "confirmation_required", correlationId: "dead", callId: "c1", name: "shell", arguments: "{}" }),
			m({ type: "confirmation_required", correlationId: "live", callId: "c2", name: "shell", arguments: "{}" }),
			m({ type: "confirmation_required", correlationId: "newer", callId: "c3", name: "shell", arguments: "{}" }),
		]);
		const dropped = dropDeadPending(t, { live: new Set(["live"]), upToSeq: 3 });
		expect(dropped.pending.map((p) => p.correlationId)).toEqual(["live", "newer"]);
		expect(dropped.items["tool::c1"]).toMatchObject({ state: "interrupted" });
		expect(dropped.items["tool::c2"]).toMatchObject({ state: "awaiting_approval" });
		expect(dropDeadPending(dropped, { live: new Set(["live"]), upToSeq: 3 })).toBe(dropped);
		const answered = dropDeadPending(dropped, { correlationId: "live" });
		expect(answered.pending.map((p) => p.correlationId)).toEqual(["newer"]);
		// Another tab's decision, arriving after the card went, still moves the call on.
		const decided = applyMessages(answered, [
			m({
				type: "approval_decision",
				callId: "c2",
				name: "shell",
				decision: "allow",
				by: "user",
				correlationId: "live",
			}),
		]);
		expect(decided.items["tool::c2"]).toMatchObject({ state: "pending" });
	});
});

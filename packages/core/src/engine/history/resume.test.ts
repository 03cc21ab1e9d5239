import { describe, expect, it } from "vitest";
import { assistantText, makeMessage, toolCall, toolCallOutput, userText } from "../../messages/constructors.js";
import type { ModelMessage, OmniMessage } from "../../messages/omni-message.js";
import { rebuildFromTrace } from "./resume.js";

const NO_USAGE = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 0 };
const call = toolCall("c1", "echo", { text: "a" });

/** A Trace's messages, numbered as it numbers them. */
function traced(...messages: OmniMessage[]): OmniMessage[] {
	return messages.map((message, i) => ({ ...message, seq: i + 1 }));
}

function shape(context: readonly ModelMessage[]): string[] {
	return context.map((m) => (m.type === "user_text" ? `user:${m.text.split("\n")[0]}` : m.type));
}

/** A turn that said something and ran its call, up to (not including) its request's end. */
const turnWithCall = (): OmniMessage[] => [
	userText("go"),
	makeMessage("request_begin", { turn: 1, attempt: 0 }),
	assistantText("I will echo"),
	call,
	makeMessage("tool_start", { callId: "c1", name: "echo" }),
	toolCallOutput(call, "echo: a"),
];

const failedForGood = makeMessage("request_end", {
	status: "failed",
	error: { kind: "fatal", message: "boom" },
});
const done = (reason: "error" | "budget_exceeded") =>
	makeMessage("done", {
		reason,
		usage: NO_USAGE,
		sessionUsage: NO_USAGE,
		...(reason === "error" ? { error: { kind: "fatal", message: "boom" } } : {}),
	});

describe("rebuildFromTrace: a turn a failure ended mid-output", () => {
	it("becomes one [turn_aborted] note, as the live carry-over has it", () => {
		const { context } = rebuildFromTrace(traced(...turnWithCall(), failedForGood, done("error")));
		expect(shape(context)).toEqual([
			"user:go",
			"user:[turn_aborted]This turn failed before the model finished its response (fatal: boom).",
		]);
	});

	it("but not a turn cut off while it waited to reconnect (a crash), at a later Task's end without a turn", () => {
		const waiting = makeMessage("request_end", {
			status: "timeout",
			retry_in_ms: 1_000,
			attempt: 1,
			error: { kind: "timeout", message: "stalled" },
		});
		// The crash left no `done`; the next Task failed before it made a request (its compaction, say).
		const { context } = rebuildFromTrace(traced(...turnWithCall(), waiting, userText("next"), done("error")));
		expect(shape(context)).toEqual(["user:go", "assistant_text", "tool_call", "tool_call_output", "user:next"]);
	});

	it("nor a Task that ended on its own another way (its output had completed)", () => {
		const ok = makeMessage("request_end", { status: "ok" });
		const { context } = rebuildFromTrace(traced(...turnWithCall(), ok, done("budget_exceeded")));
		expect(shape(context)).toEqual(["user:go", "assistant_text", "tool_call", "tool_call_output"]);
	});
});

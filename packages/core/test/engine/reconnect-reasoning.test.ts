import { afterEach, describe, expect, it } from "vitest";
import { fail, type ScriptedStep, say, think } from "../../src/model/scripted.js";
import { cleanup, harness, runText, shape } from "../harness.js";

afterEach(cleanup);

const blip = fail({ class: "timeout", message: "socket hang up" });

describe("reconnect after a failed attempt that streamed only reasoning", () => {
	it("the failed attempt's reasoning reaches the retried request in [turn_retried], and the context keeps it before the answer", async () => {
		const { session, model } = await harness([[think("plan A"), blip], [say("answer")]], {
			settings: { reconnect: { baseMs: 1 } },
		});
		await runText(session, "go");
		const retry = shape(model.requests[1]?.messages ?? []);
		expect(retry).toHaveLength(2);
		expect(retry[1]).toMatch(/^user:\[turn_retried\][\s\S]*Already reasoned:\nplan A\[\/turn_retried\]$/);
		expect(shape(session.context)).toEqual(["user:go", "reasoning:plan A", "assistant:answer"]);
	});

	it("reasoning and a tool call cut off mid-stream reach [turn_retried] too; the cut-off call never runs", async () => {
		const cutOff: ScriptedStep[] = [
			{ type: "reasoning_deltas", chunks: ["plan ", "B"] },
			{ type: "tool_call_deltas", name: "echo", callId: "c1", chunks: ['{"te'] },
		];
		const { session, model } = await harness([[...cutOff, blip], [say("answer")]], {
			settings: { reconnect: { baseMs: 1 } },
		});
		await runText(session, "go");
		const retry = shape(model.requests[1]?.messages ?? []);
		expect(retry[1]).toContain("Reasoning cut off:\nplan B");
		expect(retry[1]).toContain('- echo({"te…)');
		expect(shape(session.context)).toEqual(["user:go", "assistant:answer"]);
	});

	it("when the reconnects run out, the next Task's [turn_aborted] carries what every failed attempt had streamed", async () => {
		const cutOff: ScriptedStep[] = [
			{ type: "reasoning_deltas", chunks: ["plan C"] },
			{ type: "tool_call_deltas", name: "echo", callId: "c1", chunks: ['{"text":'] },
		];
		const { session, model } = await harness([[...cutOff, blip], [blip], [say("next")]], {
			settings: { reconnect: { baseMs: 1, maxRetries: 1 } },
		});
		await runText(session, "go");
		await runText(session, "again");
		const aborted = shape(model.requests[2]?.messages ?? []).find((m) => m.includes("[turn_aborted]")) ?? "";
		expect(aborted).toContain("Partial reasoning:\nplan C");
		expect(aborted).toContain('- echo({"text":…) → cut off by a failed attempt, not run');
	});
});

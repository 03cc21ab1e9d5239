import { afterEach, describe, expect, it } from "vitest";
import { fail, say, think } from "../../src/model/scripted.js";
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
});

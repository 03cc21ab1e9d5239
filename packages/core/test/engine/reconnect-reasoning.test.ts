import { afterEach, describe, expect, it } from "vitest";
import { fail, say, think } from "../../src/model/scripted.js";
import { cleanup, harness, runText, shape } from "../harness.js";

afterEach(cleanup);

const blip = fail({ class: "timeout", message: "socket hang up" });

describe("reconnect after a failed attempt that streamed only reasoning", () => {
	it("the failed attempt's reasoning is either carried in [turn_retried] or kept out of the context (never in the history without the model having seen it)", async () => {
		const { session, model } = await harness([[think("plan A"), blip], [say("answer")], [say("second")]], {
			settings: { reconnect: { baseMs: 1 } },
		});
		await runText(session, "go");
		const retry = shape(model.requests[1]?.messages ?? []);
		const carried = retry.some((s) => s.startsWith("user:[turn_retried]") && s.includes("plan A"));
		const inContext = shape(session.context).includes("reasoning:plan A");
		expect({ carried, inContext }).not.toEqual({ carried: false, inContext: true });
	});
});

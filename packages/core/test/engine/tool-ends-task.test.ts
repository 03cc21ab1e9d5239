import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, say } from "../../src/model/scripted.js";
import { tool } from "../../src/tools/tool.js";
import { cleanup, echoTool, harness, lastDone, ofType, runText, shape, tracedMessages, types } from "../harness.js";

afterEach(cleanup);

/** A tool that ends the Task (spec, Done reasons: "…or a tool ended execution"), after `ms`; `late` asks only once it has settled. */
function finishTool(options: { ms?: number; late?: boolean } = {}) {
	return tool({
		name: "finish",
		description: "Hands in the answer and ends the Task.",
		parameters: z.object({ answer: z.string() }),
		readOnly: true,
		execute: async ({ answer }, ctx) => {
			if (options.ms !== undefined) await sleep(options.ms);
			if (options.late === true) setImmediate(() => ctx.endTask());
			else ctx.endTask();
			return `handed in: ${answer}`;
		},
	});
}

describe("a tool ended execution: the Task ends with model_stop", () => {
	it("ends once every call of the turn has its output, which joins the context; the model is not asked again", async () => {
		const { session, model, home } = await harness(
			[
				[callTool("finish", { answer: "42" }, "c1"), callTool("echo", { text: "slow", ms: 30 }, "c2")],
				[say("never asked")],
				[say("next Task")],
			],
			{ tools: [finishTool(), echoTool()] },
		);
		const out = await runText(session, "go");
		expect(model.requests).toHaveLength(1);
		expect(lastDone(out)?.reason).toBe("model_stop");
		// The other call of the turn still ran to its output.
		expect(ofType(out, "tool_call_output").map((m) => [m.callId, m.output])).toEqual([
			["c1", "handed in: 42"],
			["c2", "echo: slow"],
		]);
		expect(types(out).slice(-2)).toEqual(["tool_call_output", "done"]);
		expect(ofType(tracedMessages(home, session.id), "done").map((m) => m.reason)).toEqual(["model_stop"]);

		// The next Task's request carries the outputs in call order, then its own prompt: pairing intact.
		await runText(session, "again");
		expect(shape(model.requests[1]?.messages ?? [])).toEqual([
			"user:go",
			"call:c1",
			"call:c2",
			"out:c1:ok",
			"out:c2:ok",
			"user:again",
		]);
	});

	it("steering a person sent meanwhile is answered first: the Task goes on, as when the model stops", async () => {
		const { session, model } = await harness(
			[[callTool("finish", { answer: "42" }, "c1")], [say("about that steering")]],
			{ tools: [finishTool({ ms: 20 })] },
		);
		const out: OmniMessage[] = [];
		for await (const m of session.run([userText("go")])) {
			out.push(m);
			if (m.type === "tool_start") expect(session.steer("and explain it")).toBe(true);
		}
		expect(model.requests).toHaveLength(2);
		expect(shape(model.requests[1]?.messages ?? []).at(-1)).toBe("user:[user_steering]and explain it[/user_steering]");
		expect(lastDone(out)?.reason).toBe("model_stop");
	});

	it("asked after the tool's call settled, it has no effect", async () => {
		const { session, model } = await harness([[callTool("finish", { answer: "42" }, "c1")], [say("asked again")]], {
			tools: [finishTool({ late: true })],
		});
		const out = await runText(session, "go");
		expect(model.requests).toHaveLength(2);
		expect(ofType(out, "assistant_text").map((m) => m.text)).toEqual(["asked again"]);
	});
});

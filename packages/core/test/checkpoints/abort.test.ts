import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { userText } from "../../src/messages/constructors.js";
import { callTool, say } from "../../src/model/scripted.js";
import { tool } from "../../src/tools/tool.js";
import { cleanup, collect, lastDone, pairingProblems, shape } from "../harness.js";
import { filesHarness } from "./checkpoint-helpers.js";

afterEach(cleanup);

describe("an abort while the turn's checkpoint is being made", () => {
	it("the Task ends at once (user_abort), the call never runs, and the next request pairs it with an interrupted output", async () => {
		const runs: string[] = [];
		const write = tool({
			name: "write",
			description: "writes",
			parameters: z.object({ text: z.string() }),
			execute: async ({ text }) => {
				runs.push(text);
				return "wrote";
			},
		});
		const { session, model } = await filesHarness([[callTool("write", { text: "x" }, "w1")], [say("next")]], {
			tools: [write],
			builtins: false,
			approval: { write: "ask" },
		});
		const controller = new AbortController();
		const out = await collect(
			session.run([userText("go")], {
				signal: controller.signal,
				// Allowed, then aborted a tick later: the checkpoint (a git process) is still running.
				approve: async () => {
					setImmediate(() => controller.abort());
					return "allow";
				},
			}),
		);
		expect(lastDone(out)?.reason).toBe("user_abort");
		expect(out.some((m) => m.type === "tool_start")).toBe(false);
		await collect(session.run([userText("again")]));
		expect(runs).toEqual([]);
		const sent = model.requests[1]?.messages ?? [];
		expect(pairingProblems(sent)).toEqual([]);
		expect(shape(sent)).toContain("out:w1:interrupted");
		await session.close();
	});
});

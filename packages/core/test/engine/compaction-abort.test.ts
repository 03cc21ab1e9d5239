import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { createGate } from "../../src/model/gate.js";
import { callTool, holdAt, reportUsage, ScriptedModel, say } from "../../src/model/scripted.js";
import { tool } from "../../src/tools/tool.js";
import { cleanup, collect, harness, ofType, runText, strictAgent, tracedMessages, types } from "../harness.js";

afterEach(cleanup);

describe("aborting a compaction", () => {
	it("an aborted compact() closes its open request with token_usage and request_end, then compaction_end failed", async () => {
		const gate = createGate();
		const { session } = await harness([
			[say("hello there, a long answer")],
			[holdAt(gate), say("[summary]s[/summary]")],
		]);
		await runText(session, "hi");
		const controller = new AbortController();
		const seen: OmniMessage[] = [];
		for await (const m of session.compact({ signal: controller.signal })) {
			seen.push(m);
			if (m.type === "request_begin") gate.reached.then(() => controller.abort());
		}
		expect(types(seen)).toEqual(["compaction_begin", "request_begin", "token_usage", "request_end", "compaction_end"]);
		expect(ofType(seen, "request_end")[0]?.status).toBe("aborted");
		expect(session.busy).toBe(false);
	});

	it("a signal that already fired ends a compaction before it asks the model", async () => {
		const { session, model } = await harness([[say("hello there, a long answer")], [say("[summary]s[/summary]")]]);
		await runText(session, "hi");
		const controller = new AbortController();
		controller.abort();
		const seen = await collect(session.compact({ signal: controller.signal }));
		expect(model.requests).toHaveLength(1);
		expect(types(seen)).not.toContain("request_begin");
		expect(session.busy).toBe(false);
	});

	it("a Task aborted during its compaction ends it failed before abort, and a resumed Session's context trigger reads the turns after it", async () => {
		const gate = createGate();
		const echo = tool({
			name: "echo",
			description: "echoes",
			parameters: z.object({ t: z.string() }),
			readOnly: true,
			execute: async ({ t }) => t,
		});
		const { session, home } = await harness(
			[
				[callTool("echo", { t: "x" }), reportUsage({ input: 5, output: 5 })],
				[holdAt(gate), say("[summary]s[/summary]")],
			],
			{ tools: [echo], settings: { compaction: { maxSessionTurns: 1, maxContextLength: 0 } } },
		);
		const controller = new AbortController();
		const seen: OmniMessage[] = [];
		for await (const m of session.run([userText("go")], { signal: controller.signal })) {
			seen.push(m);
			if (m.type === "compaction_begin") gate.reached.then(() => controller.abort());
		}
		expect(types(seen).slice(-6)).toEqual([
			"request_begin",
			"token_usage",
			"request_end",
			"compaction_end",
			"abort",
			"done",
		]);
		expect(ofType(seen, "compaction_end")[0]).toMatchObject({ status: "failed", error: { kind: "aborted" } });
		await session.close();

		// Resumed: a turn of 5,000 tokens reaches maxContextLength 1,000, so the next Task compacts first.
		const settings = { compaction: { maxSessionTurns: -1, maxContextLength: 1000 } };
		const bigTurn = new ScriptedModel([[say("big"), reportUsage({ input: 3000, output: 2000 })]]);
		const first = await (await strictAgent({ model: bigTurn, home, tools: [echo], settings })).resumeSession(
			session.id,
		);
		await runText(first, "second");
		await first.close();
		const next = new ScriptedModel([[say("[summary]s[/summary]")], [say("ok")]]);
		const again = await (await strictAgent({ model: next, home, tools: [echo], settings })).resumeSession(session.id);
		const out = await runText(again, "third");
		expect(ofType(out, "compaction_begin")[0]?.reason).toBe("context");
	});

	it("a Task aborted in the compaction before its first turn keeps its prompt: shown, recorded, and sent with the next run's", async () => {
		const gate = createGate();
		const { session, model, home } = await harness(
			[
				[say("one done")],
				[holdAt(gate), say("[summary]s[/summary]")],
				[say("[summary]s2[/summary]")],
				[say("three done")],
			],
			{ settings: { compaction: { maxSessionTurns: 1, maxContextLength: 0 } } },
		);
		await runText(session, "one");
		const controller = new AbortController();
		const seen: OmniMessage[] = [];
		for await (const m of session.run([userText("two")], { signal: controller.signal })) {
			seen.push(m);
			if (m.type === "compaction_begin") gate.reached.then(() => controller.abort());
		}
		expect(ofType(seen, "user_text").map((m) => m.text)).toEqual(["two"]);
		expect(types(seen).slice(-3)).toEqual(["user_text", "abort", "done"]);
		expect(tracedMessages(home, session.id).some((m) => m.type === "user_text" && m.text === "two")).toBe(true);
		// The next run compacts first (the trigger still holds): "two" is in the context it summarizes.
		await runText(session, "three");
		expect(model.requests).toHaveLength(4);
		expect(model.requests[2]?.purpose).toBe("compaction");
		expect(model.requests[2]?.messages.some((m) => m.type === "user_text" && m.text === "two")).toBe(true);
	});
});

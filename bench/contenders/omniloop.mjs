// omniloop: a Session on a ModelAdapter that streams the mock; every OmniMessage is read.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, tool, userText } from "@omniloop/core";
import { z } from "zod";
import { Pacer } from "../mock.mjs";

/** The mock as an omniloop ModelAdapter: one script turn per request. */
class MockModel {
	id = "bench:mock";
	#pacer = new Pacer();
	#next = 0;
	constructor(script, counts) {
		this.script = script;
		this.counts = counts;
	}
	async *streamGenerate() {
		const turn = this.script[this.#next++];
		this.counts.modelCalls++;
		const pacer = this.#pacer;
		let text = "";
		for (const delta of turn.deltas) {
			const wait = pacer.tick();
			if (wait !== undefined) await wait;
			text += delta;
			yield { type: "text_delta", delta };
		}
		if (text !== "") yield { type: "text", text };
		for (const call of turn.calls) {
			const wait = pacer.tick();
			if (wait !== undefined) await wait;
			yield { type: "tool_call", callId: call.id, name: call.name, arguments: call.args };
		}
		yield { type: "usage", usage: { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 20 } };
		yield { type: "outcome", outcome: { status: "ok", finishReason: turn.calls.length > 0 ? "tool_calls" : "stop" } };
	}
}

export async function run(script, timed, { trace }) {
	const counts = { modelCalls: 0, toolExecutions: 0, chars: 0 };
	const noop = tool({
		name: "noop",
		description: "Does nothing.",
		parameters: z.object({ i: z.number() }),
		readOnly: true,
		execute: async () => {
			counts.toolExecutions++;
			return "ok";
		},
	});
	const home = mkdtempSync(join(tmpdir(), "omniloop-bench-"));
	try {
		const agent = await createAgent({
			agentId: "bench",
			model: new MockModel(script, counts),
			tools: [noop],
			builtins: false,
			system: "",
			home,
			configDir: home,
			settings: { maxTurns: 100_000, trace: { enabled: trace }, loopDetection: { enabled: false } },
		});
		const session = await agent.createSession({ workspaceDir: home });
		await timed(async () => {
			for await (const message of session.run([userText("go")]))
				if (message.type === "partial_text") counts.chars += message.delta.length;
		});
		return counts;
	} finally {
		rmSync(home, { recursive: true, force: true });
	}
}

// omniloop: a Session on a ModelAdapter that streams the mock; every OmniMessage is read.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, tool, userText } from "@omniloop/core";
import { z } from "zod";
import { MockModel } from "./omniloop-mock.mjs";

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

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { CRASHED_WHILE_RUNNING } from "../../src/engine/continuation/unfinished-turn.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, reportUsage, ScriptedModel, say } from "../../src/model/scripted.js";
import { tool } from "../../src/tools/tool.js";
import { tracedUsageTotal } from "../crash-helpers.js";
import { cleanup, collect, lastDone, ofType, shape, strictAgent, tempDir, tracedMessages } from "../harness.js";
import { pairingProblems } from "../property/pairing-checker.js";

afterEach(cleanup);

const CHILD = new URL("./kill-child.mjs", import.meta.url).pathname;

/** Runs the child until its write tool is running, then `kill -9`s it; returns what it emitted. */
async function killMidTool(home: string, workspace: string): Promise<{ sessionId: string; seen: OmniMessage[] }> {
	const child = spawn(process.execPath, [CHILD, home, workspace], { stdio: ["ignore", "pipe", "inherit"] });
	const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
	const seen: OmniMessage[] = [];
	let sessionId = "";
	for await (const line of createInterface({ input: child.stdout })) {
		const record = JSON.parse(line) as
			| OmniMessage
			| { type: "child_session"; sessionId: string }
			| { type: "child_tool_running" };
		if (record.type === "child_session") sessionId = record.sessionId;
		else if (record.type === "child_tool_running") {
			child.kill("SIGKILL");
			break;
		} else seen.push(record);
	}
	expect(await exited).toBe("SIGKILL");
	return { sessionId, seen };
}

describe("a Session killed with kill -9 in the middle of a write tool", () => {
	it.each(["run", "continueTask"] as const)(
		"resumes (then %s) with the call interrupted and never run again, seq above every seq seen, usage the sum of token_usage, the next request validly paired",
		async (how) => {
			const home = tempDir("omniloop-home-");
			const workspace = tempDir("omniloop-ws-");
			const { sessionId, seen } = await killMidTool(home, workspace);
			// Written ahead: the Trace on disk shows the call had started.
			const traced = tracedMessages(home, sessionId);
			expect(ofType(traced, "tool_start").map((m) => m.callId)).toEqual(["w1"]);
			expect(readFileSync(join(workspace, "out.txt"), "utf8")).toBe("hello");

			const runs: string[] = [];
			const write = tool({
				name: "slow_write",
				description: "Writes a file.",
				parameters: z.object({ path: z.string(), text: z.string() }),
				execute: async ({ path, text }, ctx) => {
					runs.push(ctx.callId);
					return `wrote ${text.length} bytes to ${path}`;
				},
			});
			// The model of the resumed Session calls w1 again, as a provider replaying the turn might.
			const model = new ScriptedModel([
				[
					callTool("slow_write", { path: "out.txt", text: "hello world" }, "w1"),
					reportUsage({ input: 200, output: 10 }),
				],
				[say("done"), reportUsage({ input: 250, output: 5 })],
			]);
			const agent = await strictAgent({ agentId: "crash_agent", model, home, configDir: home, tools: [write] });
			const session = await agent.resumeSession(sessionId);
			expect(session.unfinishedTask).toEqual({ stage: "tools", pendingConfirmations: [] });
			const approve = async () => "allow" as const;
			const out = await collect(
				how === "run" ? session.run([userText("continue")], { approve }) : session.continueTask({ approve }),
			);
			await session.close();

			expect(lastDone(out)?.reason).toBe("model_stop");
			const first = model.requests[0]?.messages ?? [];
			expect(shape(first)).toEqual([
				"user:write out.txt",
				"assistant:Writing the file now.",
				"call:w1",
				"out:w1:interrupted",
				...(how === "run" ? ["user:continue"] : []),
			]);
			expect(first[3]).toMatchObject({ output: CRASHED_WHILE_RUNNING });
			for (const request of model.requests) expect(pairingProblems(request.messages)).toEqual([]);
			expect(runs).toEqual(["w1_2"]);
			expect(Math.min(...out.map((m) => m.seq))).toBeGreaterThan(Math.max(...seen.map((m) => m.seq)));
			expect(lastDone(out)?.sessionUsage.total).toBe(150 + 210 + 255);
			expect(tracedUsageTotal(home, sessionId)).toBe(150 + 210 + 255);
		},
	);
});

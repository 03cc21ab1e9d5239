import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { ScriptedModel } from "../../src/model/scripted.js";
import { tracedUsageTotal } from "../crash-helpers.js";
import { cleanup, collect, lastDone, strictAgent, tempDir } from "../harness.js";
import { pairingProblems } from "../property/pairing-checker.js";
import { script, tools } from "./kill-many-script.mjs";

afterEach(cleanup);

const CHILD = new URL("./kill-many-child.mjs", import.meta.url).pathname;

/** Runs the child's Task and `kill -9`s it once it has printed `lines` messages (or lets it finish). */
async function killAfter(home: string, workspace: string, lines: number) {
	const child = spawn(process.execPath, [CHILD, home, workspace], { stdio: ["ignore", "pipe", "inherit"] });
	const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
	const seen: OmniMessage[] = [];
	let sessionId = "";
	for await (const line of createInterface({ input: child.stdout })) {
		const record = JSON.parse(line) as OmniMessage | { type: "child_session"; sessionId: string };
		if (record.type === "child_session") sessionId = record.sessionId;
		else seen.push(record);
		if (seen.length === lines) {
			child.kill("SIGKILL");
			break;
		}
	}
	await exited;
	return { sessionId, seen };
}

/** Every tool start either process made, as the workspace's log holds them. */
const runsIn = (workspace: string) => {
	const log = join(workspace, "runs.log");
	return existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
};

describe("a Session killed with kill -9 at a random point of a Task with many tools", () => {
	// While streaming, deciding, running tools, between turns, late in the Task.
	it.each([4, 13, 22, 36, 51, 77])(
		"killed after %i messages and resumed: no call runs twice on the real disk, seq goes on above every seq seen, usage is the sum of token_usage, every request is paired",
		async (lines) => {
			const home = tempDir("omniloop-home-");
			const workspace = tempDir("omniloop-ws-");
			const { sessionId, seen } = await killAfter(home, workspace, lines);
			// The resumed Session's model plays the whole script again: call ids the child used come back.
			const model = new ScriptedModel(script());
			const agent = await strictAgent({
				agentId: "crash_agent",
				model,
				home,
				configDir: home,
				tools: tools(),
				approval: { append: "ask" },
			});
			const session = await agent.resumeSession(sessionId);
			const continued = lines % 2 === 0 && session.unfinishedTask !== undefined;
			const approve = async () => "allow" as const;
			const out = await collect(
				continued ? session.continueTask({ approve }) : session.run([userText("go on")], { approve }),
			);
			await session.close();

			expect(lastDone(out)?.reason).toBe("model_stop");
			const runs = runsIn(workspace);
			expect(runs.length).toBeGreaterThan(0);
			expect(runs.filter((id, i) => runs.indexOf(id) !== i)).toEqual([]);
			expect(Math.min(...out.map((m) => m.seq))).toBeGreaterThan(Math.max(0, ...seen.map((m) => m.seq)));
			expect(lastDone(out)?.sessionUsage.total).toBe(tracedUsageTotal(home, sessionId));
			for (const request of model.requests) expect(pairingProblems(request.messages)).toEqual([]);
		},
	);
});

import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, say } from "../../src/model/scripted.js";
import {
	cleanup,
	collect,
	echoTool,
	harness,
	lastDone,
	ofType,
	pairingProblems,
	runText,
	scriptByPurpose,
	shape,
	summary,
} from "../harness.js";

afterEach(cleanup);

/**
 * Runs until the model's output has completed and the fast call's output is out, then aborts:
 * f1 finished, s1 still running (Case A).
 */
async function abortWhileToolsRun(session: Parameters<typeof runText>[0]): Promise<OmniMessage[]> {
	const controller = new AbortController();
	const out: OmniMessage[] = [];
	for await (const m of session.run([userText("go")], { signal: controller.signal })) {
		out.push(m);
		const seen = (type: string) => out.some((o) => o.type === type);
		if (seen("request_end") && ofType(out, "tool_call_output").some((o) => o.callId === "f1")) controller.abort();
	}
	expect(ofType(out, "abort")[0]?.carryOver).toBe("A");
	return out;
}

const twoTools = [callTool("echo", { text: "fast" }, "f1"), callTool("echo", { text: "slow", ms: 60_000 }, "s1")];

describe("compaction after an interrupted Task", () => {
	it("session.compact() right after an abort while tools run sends a validly paired request, and the finished tool's result reaches the model", async () => {
		const { session, model } = await harness(scriptByPurpose([twoTools, [say("next")]], [summary("s")]), {
			tools: [echoTool()],
		});
		const out = await abortWhileToolsRun(session);
		expect(lastDone(out)?.reason).toBe("user_abort");
		const compaction = await collect(session.compact());
		expect(ofType(compaction, "compaction_end")[0]?.status).toBe("ok");
		const request = model.requests.find((r) => r.purpose === "compaction");
		expect(pairingProblems(request?.messages ?? [])).toEqual([]);
		expect(shape(request?.messages ?? []).slice(0, 5)).toEqual([
			"user:go",
			"call:f1",
			"call:s1",
			"out:f1:ok",
			"out:s1:interrupted",
		]);
		// Summarized, it is not sent again: the next run starts from the summary.
		await runText(session, "next");
		const next = model.requests.at(-1)?.messages ?? [];
		expect(shape(next)).toEqual(["user:[context_summary]s[/context_summary]", "user:next"]);
	});

	it("an automatic compaction before the next run summarizes the carry-over too", async () => {
		const { session, model } = await harness(scriptByPurpose([twoTools, [say("next")]], [summary("s")]), {
			tools: [echoTool()],
			settings: { compaction: { maxSessionTurns: 1 } },
		});
		await abortWhileToolsRun(session);
		await runText(session, "next");
		const request = model.requests.find((r) => r.purpose === "compaction");
		expect(pairingProblems(request?.messages ?? [])).toEqual([]);
		expect(shape(request?.messages ?? [])).toContain("out:f1:ok");
	});
});

import { afterEach, describe, expect, it } from "vitest";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, fail, wait } from "../../src/model/scripted.js";
import { cleanup, countedEcho, harness, lastDone, recordedWrite, runText } from "../harness.js";

afterEach(cleanup);

/** A failure no reconnect follows. */
const fatal = fail({ class: "fatal", message: "invalid_request_error", status: 400 });

/** Each call's decisions and outputs, in the order the stream gave them, up to the Task's `done`. */
function ledger(out: readonly OmniMessage[], callId: string): string[] {
	return out.flatMap((m) => {
		if (m.type === "approval_decision" && m.callId === callId) return [`decided:${m.decision}:${m.by}`];
		if (m.type === "tool_call_output" && m.callId === callId) return [`output:${m.status}`];
		if (m.type === "done") return ["done"];
		return [];
	});
}

describe("a Task whose model stream fails for good while calls of its turn are open", () => {
	it("a running read-only call gets its output (interrupted) before done", async () => {
		const runs: string[] = [];
		const { session } = await harness([[callTool("read", { text: "a", ms: 200 }, "c1"), wait(10), fatal]], {
			tools: [countedEcho(runs, { name: "read" })],
			approval: { "*": "allow" },
		});
		const out = await runText(session, "go");
		expect(lastDone(out)).toMatchObject({ reason: "error", error: { message: "invalid_request_error" } });
		expect(ledger(out, "c1")).toEqual(["decided:allow:policy", "output:interrupted", "done"]);
		// Nobody was asked: the decision answers no question.
		expect(out.find((m) => m.type === "approval_decision")).not.toHaveProperty("correlationId");
	});

	it("a call a person is being asked about gets a decision and an output; the person is asked no more", async () => {
		const runs: string[] = [];
		const { session } = await harness([[callTool("write", { text: "a" }, "w1"), wait(20), fatal]], {
			tools: [recordedWrite(runs)],
		});
		const asked: AbortSignal[] = [];
		const out = await runText(session, "go", {
			approve: (_call, { signal }) => {
				asked.push(signal);
				return new Promise((resolve) => signal.addEventListener("abort", () => resolve("allow"), { once: true }));
			},
		});
		expect(ledger(out, "w1")).toEqual(["decided:deny:policy", "output:interrupted", "done"]);
		// The decision answers the question that was asked: a host waiting on its correlation id sees it settled.
		const asking = out.find((m) => m.type === "confirmation_required");
		const decision = out.find((m) => m.type === "approval_decision");
		expect(asking?.type === "confirmation_required" && asking.correlationId).toBeTruthy();
		expect(decision).toMatchObject({
			correlationId: asking?.type === "confirmation_required" ? asking.correlationId : "",
		});
		expect(asked.map((signal) => signal.aborted)).toEqual([true]);
		expect(runs).toEqual([]);
	});
});

import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/engine/session/agent.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { createGate } from "../../src/model/gate.js";
import { holdAt, say } from "../../src/model/scripted.js";
import { cleanup, collect, harness, lastDone, ofType, runText, tempDir, types } from "../harness.js";

afterEach(cleanup);

/**
 * "hung" if `p` has not settled in 10 s: a hang, told apart from a slow machine's late answer (it
 * settles as soon as `p` does; the limit only names a hang before the test's own time is up).
 */
const hangOr = <T>(p: Promise<T>) => Promise.race([p, new Promise<"hung">((r) => setTimeout(() => r("hung"), 10_000))]);

describe("regressions found in the second review", () => {
	it("next() after return() on an unstarted stream does not start a second Task on the Session", async () => {
		const { session, model } = await harness([[say("one")], [say("two")]]);
		const a = session.run([userText("a")]);
		await a.return();
		const b = session.run([userText("b")]); // the Session was released: b claims it
		expect(await a.next()).toEqual({ value: undefined, done: true });
		await collect(b);
		expect(model.requests).toHaveLength(1);
	});

	it("compact() ends (and frees the Session) when the Trace cannot be written", async () => {
		const { session } = await harness([[say("hello there, a long answer")], [say("[summary]s[/summary]")]]);
		await runText(session, "hi");
		(session as unknown as { state: { trace: { flush(): void } } }).state.trace.flush = () => {
			throw new Error("ENOSPC");
		};
		const result = await hangOr(collect(session.compact()).catch((e: unknown) => e));
		expect(result).not.toBe("hung");
		expect(session.busy).toBe(false);
	});

	it("a first-byte timeout ends the attempt even if the model ignores its signal", async () => {
		const deaf = {
			id: "deaf:model",
			streamGenerate: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise<never>(() => {}) }) }),
		};
		const agent = await createAgent({
			agentId: "a",
			model: deaf,
			home: tempDir(),
			builtins: false,
			settings: { timeouts: { firstByteMs: 50 }, reconnect: { maxRetries: 0 } },
		});
		const session = await agent.createSession({ workspaceDir: tempDir() });
		const out = await hangOr(runText(session, "go"));
		expect(out).not.toBe("hung");
		expect(lastDone(out as OmniMessage[])).toMatchObject({
			reason: "error",
			error: { kind: "timeout", message: "no first byte within 50 ms" },
		});
	});

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
});

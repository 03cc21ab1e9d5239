import { afterEach, describe, expect, it } from "vitest";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { createGate } from "../../src/model/gate.js";
import { holdAt, say } from "../../src/model/scripted.js";
import { cleanup, collect, harness, ofType, runText, types } from "../harness.js";

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
});

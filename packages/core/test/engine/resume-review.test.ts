import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { reportUsage, ScriptedModel, say } from "../../src/model/scripted.js";
import { crashCopy, resumeCrashed, tracedUsageTotal } from "../crash-helpers.js";
import { cleanup, collect, harness, lastDone } from "../harness.js";

afterEach(cleanup);

describe("resume after a discard compaction", () => {
	for (const how of ["crash", "close"] as const) {
		it(`${how}: seq goes on above every number handed out and the token totals are kept`, async () => {
			const { session, home } = await harness([[say("one", ["o", "n", "e"]), reportUsage({ input: 50, total: 50 })]], {
				settings: { compaction: { mode: "discard" } },
			});
			const seen: OmniMessage[] = [];
			seen.push(...(await collect(session.run([userText("a")]))));
			seen.push(...(await collect(session.compact())));
			let dir = home;
			if (how === "crash") dir = crashCopy(home, session.id);
			else await session.close();
			const model = new ScriptedModel([[say("two", ["t", "w", "o"]), reportUsage({ input: 5, total: 5 })]]);
			const resumed = await resumeCrashed(dir, session.id, model);
			const after = await collect(resumed.run([userText("b")]));
			const maxBefore = Math.max(...seen.map((m) => m.seq));
			expect(Math.min(...after.map((m) => m.seq))).toBeGreaterThan(maxBefore);
			expect(lastDone(after)?.sessionUsage.total).toBe(55);
			expect(tracedUsageTotal(dir, session.id)).toBe(55);
		});
	}
});

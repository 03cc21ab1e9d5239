import { afterEach, describe, expect, it } from "vitest";
import type { Session } from "../../src/engine/session/session.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, ScriptedModel, say } from "../../src/model/scripted.js";
import { crashCopy, resumeCrashed } from "../crash-helpers.js";
import { cleanup, echoTool, harness, lastDone, runText, shape } from "../harness.js";

afterEach(cleanup);

/** Runs `start` until `when` holds for a message read, then copies the folder as a crash would leave it. */
async function crashWhen(
	session: Session,
	home: string,
	start: (signal: AbortSignal) => AsyncGenerator<OmniMessage>,
	when: (m: OmniMessage) => boolean,
	tear?: number,
): Promise<string> {
	const controller = new AbortController();
	let copy = "";
	for await (const m of start(controller.signal)) {
		if (copy !== "" || !when(m)) continue;
		copy = crashCopy(home, session.id, tear);
		controller.abort();
	}
	return copy;
}

describe("a crash that tears the line after a prompt", () => {
	it("a prompt recorded without its request, after a turn cut off mid-tool, resumes validly paired", async () => {
		const tools = [echoTool({ ms: 10_000 })];
		const { session, home, model } = await harness([[callTool("echo", { text: "a" }, "c0")]], { tools });
		const first = await crashWhen(
			session,
			home,
			(signal) => session.run([userText("go")], { signal }),
			(m) => m.type === "tool_start",
		);
		// The next process gives the cut-off Task up for a new one, and crashes as its prompt and
		// request_begin are written: the request_begin line is torn away.
		const second = await resumeCrashed(first, session.id, model, { tools });
		const torn = await crashWhen(
			second,
			first,
			(signal) => second.run([userText("follow up")], { signal }),
			(m) => m.type === "user_text",
			0,
		);
		const model3 = new ScriptedModel([[say("ok")]]);
		const third = await resumeCrashed(torn, session.id, model3, { tools });
		expect(third.unfinishedTask).toBeUndefined();
		const out = await runText(third, "again");
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(shape(model3.requests[0]?.messages ?? [])).toEqual([
			"user:go",
			"call:c0",
			"out:c0:interrupted",
			"user:follow up",
			"user:again",
		]);
	});
});

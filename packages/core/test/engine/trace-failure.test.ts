import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Session } from "../../src/engine/session/session.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, say } from "../../src/model/scripted.js";
import { tool } from "../../src/tools/tool.js";
import { cleanup, collect, hangOr, harness, lastDone, runText } from "../harness.js";

afterEach(cleanup);

/** The Session's Trace writer, reached past the public API to make the disk fail. */
function traceOf(session: Session): { flush(): void } {
	return (session as unknown as { state: { trace: { flush(): void } } }).state.trace;
}

describe("a Trace that cannot be written", () => {
	it("ends the Task with an error while it waits to ask for approval, instead of hanging it", async () => {
		const write = tool({ name: "write", description: "w", parameters: z.object({}), execute: async () => "ok" });
		const { session } = await harness([[callTool("write", {}, "c1")], [say("ok")]], { tools: [write] });
		const trace = traceOf(session);
		const out: OmniMessage[] = [];
		for await (const m of session.run([userText("go")], { approve: async () => "allow" })) {
			out.push(m);
			if (m.type === "request_begin") {
				trace.flush = () => {
					throw new Error("ENOSPC: no space left on device");
				};
			}
		}
		expect(lastDone(out)).toMatchObject({ reason: "error", error: { message: expect.stringContaining("ENOSPC") } });
		expect(out.filter((m) => m.type === "done")).toHaveLength(1);
		expect(session.busy).toBe(false);
	});

	it("ends a compact() and frees the Session instead of hanging it", async () => {
		const { session } = await harness([[say("hello there, a long answer")], [say("[summary]s[/summary]")]]);
		await runText(session, "hi");
		traceOf(session).flush = () => {
			throw new Error("ENOSPC");
		};
		const result = await hangOr(collect(session.compact()).catch((e: unknown) => e));
		expect(result).not.toBe("hung");
		expect(session.busy).toBe(false);
	});
});

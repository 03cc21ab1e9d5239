import { afterEach, describe, expect, it } from "vitest";
import { SessionBusyError } from "../../src/engine/session/errors.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { createGate } from "../../src/model/gate.js";
import { holdAt, say } from "../../src/model/scripted.js";
import { cleanup, collect, harness, lastDone, runText } from "../harness.js";

afterEach(cleanup);

describe("Concurrency model", () => {
	it("within a Session only one Task runs at a time: a second run fails at once with a typed busy error, and the first is unharmed", async () => {
		const gate = createGate();
		const { session, model } = await harness([[say("first"), holdAt(gate), say(" finished")], [say("second")]]);
		const first: OmniMessage[] = [];
		const running = (async () => {
			for await (const m of session.run([userText("one")])) first.push(m);
		})();
		await gate.reached;
		expect(session.busy).toBe(true);
		let thrown: unknown;
		try {
			session.run([userText("two")]);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(SessionBusyError);
		expect((thrown as SessionBusyError).sessionId).toBe(session.id);
		gate.release();
		await running;
		expect(lastDone(first)?.reason).toBe("model_stop");
		expect(model.requests).toHaveLength(1);
		// Once the first Task is done the Session takes the next one.
		expect(lastDone(await runText(session, "two"))?.reason).toBe("model_stop");
	});

	it("a run that was created but never read is released when closed", async () => {
		const { session } = await harness([[say("x")]]);
		const unread = session.run([userText("never read")]);
		expect(session.busy).toBe(true);
		await unread.return(undefined);
		expect(session.busy).toBe(false);
	});

	it("the Session is free once done has been yielded", async () => {
		const { session } = await harness([[say("a")]]);
		let busyAtDone: boolean | undefined;
		for await (const m of session.run([userText("go")])) if (m.type === "done") busyAtDone = session.busy;
		expect(busyAtDone).toBe(false);
	});

	it("next() after return() on an unstarted stream does not start a second Task on the Session", async () => {
		const { session, model } = await harness([[say("one")], [say("two")]]);
		const a = session.run([userText("a")]);
		await a.return();
		const b = session.run([userText("b")]); // the Session was released: b claims it
		expect(await a.next()).toEqual({ value: undefined, done: true });
		await collect(b);
		expect(model.requests).toHaveLength(1);
	});
});

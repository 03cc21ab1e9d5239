import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reportUsage, say } from "../../src/model/scripted.js";
import { listSessions } from "../../src/session-store/session-index.js";
import { sessionDir, traceFileName } from "../../src/trace/trace-files.js";
import { readTrace, TraceFormatError } from "../../src/trace/trace-reader.js";
import { cleanup, harness, runText } from "../harness.js";

afterEach(cleanup);

describe("what a crash leaves in a Trace, as readers see it", () => {
	it("a seq reservation without a number, or a record without type and seq, is a damaged line named by its number and left out", async () => {
		const { session, home } = await harness([[say("x")]]);
		await runText(session, "go");
		const path = join(sessionDir(home, session.id), traceFileName(1));
		const before = readTrace(path);
		const count = readFileSync(path, "utf8").split("\n").length - 1;
		appendFileSync(
			path,
			`${JSON.stringify({ type: "seq_reserved", upTo: "lots" })}\n${JSON.stringify({ note: "x", seq: 99 })}\n`,
		);
		const after = readTrace(path);
		expect(after.damagedLines).toEqual([
			{ line: count + 1, problem: "a seq_reserved needs a number `upTo`" },
			{ line: count + 2, problem: "a message needs a string `type` and a number `seq`" },
		]);
		expect(after.messages).toEqual(before.messages);
		expect(after.seqReserved).toBe(before.seqReserved);
	});

	it("the list of Sessions passes over a newest file a crash left unbegun, without touching it", async () => {
		const { session, home } = await harness([[reportUsage({ input: 10, output: 2 }), say("hi")]]);
		await runText(session, "go");
		const unbegun = join(sessionDir(home, session.id), traceFileName(2));
		writeFileSync(unbegun, '{"type":"trace_hea');
		expect(listSessions(home)).toMatchObject([{ sessionId: session.id, traceFiles: 1, usage: { total: 12 } }]);
		expect(readTrace(join(sessionDir(home, session.id), traceFileName(1))).messages.length).toBeGreaterThan(0);
		expect(() => readTrace(unbegun)).toThrow(TraceFormatError);
	});
});

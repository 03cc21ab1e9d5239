import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reportUsage, say } from "../../src/model/scripted.js";
import { listSessions } from "../../src/trace/session-index.js";
import { sessionDir, traceFileName } from "../../src/trace/trace-files.js";
import { readTrace, TraceFormatError } from "../../src/trace/trace-reader.js";
import { cleanup, harness, runText } from "../harness.js";

afterEach(cleanup);

describe("what a crash leaves in a Trace, as readers see it", () => {
	it("a seq reservation without a number is a TraceFormatError naming the file and line", async () => {
		const { session, home } = await harness([[say("x")]]);
		await runText(session, "go");
		const path = join(sessionDir(home, session.id), traceFileName(1));
		appendFileSync(
			path,
			`${JSON.stringify({ type: "seq_reserved", upTo: "lots" })}\n${JSON.stringify({ type: "x", seq: 99 })}\n`,
		);
		expect(() => readTrace(path)).toThrow(TraceFormatError);
		expect(() => readTrace(path)).toThrow(/trace\.jsonl:\d+: a seq_reserved needs a number `upTo`/);
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

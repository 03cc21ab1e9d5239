import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGate } from "../../src/model/gate.js";
import { say } from "../../src/model/scripted.js";
import { sessionDir, traceFileName } from "../../src/trace/trace-files.js";
import { readTrace } from "../../src/trace/trace-reader.js";
import { cleanup, harness, runText, tracedMessages } from "../harness.js";

afterEach(cleanup);

describe("a steer is a field of its user text (docs/protocol.md, Messages)", () => {
	it("emitted and written with `steer` as the person wrote it; the model still reads the wrapped text", async () => {
		const gate = createGate();
		const { session, home, model } = await harness([[{ type: "gate", gate }, say("one")], [say("two")]]);
		const running = runText(session, "go");
		await gate.reached;
		expect(session.steer("  use tabs\n")).toBe(true);
		gate.release();
		const emitted = (await running).filter((m) => m.type === "user_text");
		expect(emitted.map((m) => m.steer)).toEqual([undefined, "  use tabs\n"]);
		expect(emitted[1]?.text).toBe("[user_steering]  use tabs\n[/user_steering]");
		// Straight from the disk: the field is written, not only made when read.
		const traced = tracedMessages(home, session.id);
		expect(traced.filter((m) => m.type === "user_text").map((m) => m.steer)).toEqual([undefined, "  use tabs\n"]);
		expect(JSON.stringify(model.requests[1])).toContain("[user_steering]  use tabs\\n[/user_steering]");
	});

	it("a Trace written before the field (only the wrapped text) reads with it; other user texts do not get it", async () => {
		const { session, home } = await harness([[say("x")]]);
		await runText(session, "go");
		const path = join(sessionDir(home, session.id), traceFileName(1));
		const lines = readFileSync(path, "utf8").trimEnd().split("\n");
		const old = (seq: number, text: string) => JSON.stringify({ id: `old${seq}`, ts: 1, seq, type: "user_text", text });
		writeFileSync(
			path,
			`${[...lines, old(900, "[user_steering]look at src/[/user_steering]"), old(901, "not [user_steering]a[/user_steering] steer")].join("\n")}\n`,
		);
		const [steer, plain] = readTrace(path).messages.slice(-2);
		expect(steer).toMatchObject({
			type: "user_text",
			text: "[user_steering]look at src/[/user_steering]",
			steer: "look at src/",
		});
		expect(plain).not.toHaveProperty("steer");
	});
});

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { callTool, say } from "../../src/model/scripted.js";
import { sessionDir, traceFileName } from "../../src/trace/trace-files.js";
import { cleanup, countedEcho, harness, lastDone, ofType, recordedWrite, runText } from "../harness.js";

afterEach(cleanup);

/** The record types of the Session's Trace file as it is on disk now. */
function tracedTypes(home: string, sessionId: string): string[] {
	const text = readFileSync(join(sessionDir(home, sessionId), traceFileName(1)), "utf8");
	return text
		.split("\n")
		.filter((line) => line !== "")
		.map((line) => (JSON.parse(line) as OmniMessage).type);
}

describe("a host that copies the Trace elsewhere (shipTrace)", () => {
	it("a tool starts only once the host has shipped the Trace that holds its tool_start", async () => {
		const runs: string[] = [];
		const shipped: { types: string[]; runsThen: number }[] = [];
		let home = "";
		let sessionId = "";
		const { session, home: h } = await harness([[callTool("write", { text: "a" }, "w1")], [say("done")]], {
			tools: [recordedWrite(runs)],
			approval: { write: "allow" },
			shipTrace: async (id) => {
				await new Promise((resolve) => setTimeout(resolve, 30));
				shipped.push({ types: tracedTypes(home, id), runsThen: runs.length });
				sessionId = id;
			},
		});
		home = h;
		const out = await runText(session, "go");
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(sessionId).toBe(session.id);
		expect(runs).toEqual(["w1"]);
		// The first shipment is the write-ahead one: the call and its start are in it, nothing ran yet.
		expect(shipped[0]?.types).toEqual(expect.arrayContaining(["tool_call", "approval_decision", "tool_start"]));
		expect(shipped[0]?.runsThen).toBe(0);
	});

	it("a person is asked only once the host has shipped the Trace that holds the confirmation_required", async () => {
		let home = "";
		const askedWith: string[][] = [];
		const shippedTypes: string[][] = [];
		const { session, home: h } = await harness([[callTool("write", { text: "a" }, "w1")], [say("done")]], {
			tools: [recordedWrite([])],
			shipTrace: async (id) => {
				shippedTypes.push(tracedTypes(home, id));
			},
		});
		home = h;
		await runText(session, "go", {
			approve: async () => {
				askedWith.push(shippedTypes.at(-1) ?? []);
				return "allow";
			},
		});
		expect(askedWith[0]).toContain("confirmation_required");
	});

	it("a shipment that fails ends the Task with its error; the tool never runs", async () => {
		const runs: string[] = [];
		const { session } = await harness([[callTool("echo", { text: "a" }, "e1")], [say("never")]], {
			tools: [countedEcho(runs)],
			shipTrace: async () => {
				throw new Error("the database is out of reach");
			},
		});
		const out = await runText(session, "go");
		expect(lastDone(out)).toMatchObject({
			reason: "error",
			error: { message: expect.stringContaining("out of reach") },
		});
		expect(runs).toEqual([]);
		expect(ofType(out, "tool_start")).toHaveLength(1);
	});
});

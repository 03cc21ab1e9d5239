import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/engine/agent/agent.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { createGate } from "../../src/model/gate.js";
import { callTool, holdAt, ScriptedModel, say } from "../../src/model/scripted.js";
import { SEQ_BLOCK } from "../../src/trace/seq-reservation.js";
import { sessionDir, traceFileName } from "../../src/trace/trace-files.js";
import { readTrace } from "../../src/trace/trace-reader.js";
import { crashCopy, resumeCrashed } from "../crash-helpers.js";
import { cleanup, harness, runText, tempDir } from "../harness.js";
import { bossAndResearcher } from "./subagent-project.js";

afterEach(cleanup);

describe("Seq never repeats", () => {
	it("after a crash and resume, no seq is handed out twice, partials included", async () => {
		const gate = createGate();
		const chunks = Array.from({ length: 50 }, (_, i) => `w${i} `);
		const { session, home } = await harness([[say(chunks.join(""), chunks), holdAt(gate)]]);
		const controller = new AbortController();
		const seen: OmniMessage[] = [];
		let crashed = "";
		for await (const m of session.run([userText("go")], { signal: controller.signal })) {
			if (crashed !== "") continue;
			seen.push(m);
			if (seen.length === 40) {
				crashed = crashCopy(home, session.id);
				controller.abort();
				gate.release();
			}
		}
		expect(seen.filter((m) => m.type === "partial_text").length).toBeGreaterThan(30);
		const resumed = await resumeCrashed(crashed, session.id, new ScriptedModel([[say("after")]]));
		const out = await runText(resumed, "again");
		const before = Math.max(...seen.map((m) => m.seq));
		expect(Math.min(...out.map((m) => m.seq))).toBeGreaterThan(before);
	});

	it("numbers are reserved in blocks by Trace records that history readers never see", async () => {
		const chunks = Array.from({ length: 1100 }, (_, i) => `${i % 10}`);
		const { session, home } = await harness([[say(chunks.join(""), chunks)]]);
		const out = await runText(session, "go");
		expect(out.at(-1)?.seq).toBeGreaterThan(1024);
		const path = join(sessionDir(home, session.id), traceFileName(1));
		const records = readFileSync(path, "utf8").split("\n").filter(Boolean);
		// The first message reserves the first block, the 1025th the next one: SEQ_BLOCK each.
		expect(records.filter((line) => line.includes('"type":"seq_reserved"'))).toEqual([
			JSON.stringify({ type: "seq_reserved", upTo: 1024 }),
			JSON.stringify({ type: "seq_reserved", upTo: 2048 }),
		]);
		const read = readTrace(path);
		expect(read.seqReserved).toBe(2048);
		expect(read.messages.map((m) => m.type)).not.toContain("seq_reserved");
		const resumed = await resumeCrashed(crashCopy(home, session.id), session.id, new ScriptedModel([[say("x")]]));
		expect((await runText(resumed, "again"))[0]?.seq).toBe(2049);
	});

	it("a subagent's messages are forwarded with the parent's seq, reserved in the parent's Trace: none repeats after a crash", async () => {
		const configDir = bossAndResearcher();
		const gate = createGate();
		const chunks = Array.from({ length: 1100 }, (_, i) => `${i % 10}`);
		const models = {
			main: new ScriptedModel([[callTool("agent__researcher", { task: "count" }, "d1")]]),
			helper: new ScriptedModel([[say(chunks.join(""), chunks), holdAt(gate)]]),
		};
		const home = tempDir();
		const options = { agentId: "boss", configDir, models, builtins: false };
		const session = await (await createAgent({ ...options, home })).createSession({ workspaceDir: tempDir() });
		const controller = new AbortController();
		let highest = 0;
		let crashed = "";
		for await (const m of session.run([userText("go")], { signal: controller.signal })) {
			if (crashed !== "") continue;
			highest = m.seq;
			if (m.type === "partial_text" && m.origin !== undefined && m.seq > 1100) {
				crashed = crashCopy(home, session.id);
				controller.abort();
				gate.release();
			}
		}
		models.main = new ScriptedModel([[say("after")]]);
		const resumed = await (await createAgent({ ...options, home: crashed })).resumeSession(session.id);
		const out = await runText(resumed, "again");
		expect(out[0]?.seq).toBeGreaterThan(highest);
	});

	it("bounded: each crash skips at most one block (SEQ_BLOCK), a resume before anything was handed out skips none", async () => {
		const { session, home } = await harness([]);
		// Made, never used, then crashed: nothing was handed out, so the first seq is 1.
		let copy = crashCopy(home, session.id);
		let resumed = await resumeCrashed(copy, session.id, new ScriptedModel([[say("first")]]));
		expect((await runText(resumed, "go"))[0]?.seq).toBe(1);
		// 27 crashes, each after a Task: every one skips the rest of its block, never more.
		for (let crash = 0; crash < 27; crash++) {
			copy = crashCopy(copy, session.id);
			resumed = await resumeCrashed(copy, session.id, new ScriptedModel([[say("again")]]));
			const out = await runText(resumed, "go");
			expect(out.at(-1)?.seq).toBeLessThanOrEqual((crash + 2) * SEQ_BLOCK);
		}
	});
});

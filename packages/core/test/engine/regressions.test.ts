import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { createGate } from "../../src/model/gate.js";
import { callTool, holdAt, say } from "../../src/model/scripted.js";
import {
	cleanup,
	countedEcho,
	echoTool,
	harness,
	lastDone,
	ofType,
	runText,
	scriptByPurpose,
	shape,
	tracedMessages,
} from "../harness.js";

afterEach(cleanup);

describe("regressions found in review", () => {
	it("max_turns after a tool turn keeps the outputs paired for the next Task", async () => {
		const { session, model } = await harness([[callTool("echo", { text: "a" }, "c1")], [say("next task answer")]], {
			tools: [echoTool()],
			settings: { maxTurns: 1 },
		});
		expect(lastDone(await runText(session, "go"))?.reason).toBe("max_turns");
		const out = await runText(session, "continue");
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(shape(model.requests[1]?.messages ?? [])).toEqual(["user:go", "call:c1", "out:c1:ok", "user:continue"]);
	});

	it("an aborted-before-start run does not clobber the previous Task's carry-over", async () => {
		const { session, model } = await harness([[callTool("echo", { text: "a", ms: 5000 }, "c1")], [say("ok")]], {
			tools: [echoTool()],
		});
		const c1 = new AbortController();
		for await (const m of session.run([userText("go")], { signal: c1.signal }))
			if (m.type === "request_end") c1.abort();
		const c2 = new AbortController();
		c2.abort(); // e.g. a second Ctrl-C, or a host that aborts before reading
		await runText(session, "second", { signal: c2.signal });
		const out = await runText(session, "third");
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(shape(model.requests[1]?.messages ?? [])).toContain("out:c1:interrupted");
	});

	it("a call id the model repeats gets a fresh one: each id runs once, every call is answered, the Task does not hang", async () => {
		const runs: string[] = [];
		const counted = countedEcho(runs);
		const { session, model } = await harness(
			[
				[callTool("echo", { text: "a" }, "dup"), callTool("echo", { text: "b" }, "dup")],
				[callTool("echo", { text: "c" }, "dup")],
				[say("ok")],
			],
			{ tools: [counted] },
		);
		const out = await runText(session, "go");
		expect(runs).toEqual(["dup", "dup_2", "dup_3"]);
		expect(lastDone(out)?.reason).toBe("model_stop");
		expect(shape(model.requests[2]?.messages ?? [])).toEqual([
			"user:go",
			"call:dup",
			"call:dup_2",
			"out:dup:ok",
			"out:dup_2:ok",
			"call:dup_3",
			"out:dup_3:ok",
		]);
	});

	it("accepted steering survives an abort followed by a resume", async () => {
		const gate = createGate();
		const { session, agent, model, home } = await harness([[say("working"), holdAt(gate)], [say("resumed")]]);
		const c = new AbortController();
		let accepted = false;
		for await (const m of session.run([userText("go")], { signal: c.signal })) {
			if (m.type === "assistant_text") {
				accepted = session.steer("use tabs");
				c.abort();
			}
		}
		expect(accepted).toBe(true);
		session.close();
		const resumed = await agent.resumeSession(session.id);
		await runText(resumed, "more");
		const sent = model.requests.flatMap((r) => r.messages.map((m) => (m.type === "user_text" ? m.text : "")));
		const traced = tracedMessages(home, session.id).map((m) => (m.type === "user_text" ? m.text : ""));
		const w = "[user_steering]use tabs[/user_steering]";
		expect(sent.includes(w) || traced.includes(w)).toBe(true);
	});

	it("the Session is free once done has been yielded", async () => {
		const { session } = await harness([[say("a")]]);
		let busyAtDone: boolean | undefined;
		for await (const m of session.run([userText("go")])) if (m.type === "done") busyAtDone = session.busy;
		expect(busyAtDone).toBe(false);
	});

	it("a tool that ran before the request failed is visible to the model in the next Task", async () => {
		const { session, model } = await harness(
			[
				[
					callTool("echo", { text: "a" }, "c1"),
					{ type: "delay", ms: 20 },
					{ type: "fail", failure: { class: "fatal", message: "boom" } },
				],
				[say("ok")],
			],
			{ tools: [echoTool()] },
		);
		const out: OmniMessage[] = await runText(session, "go");
		expect(ofType(out, "tool_call_output")).toHaveLength(1); // it ran, and is in the Trace
		await runText(session, "again");
		const sent = model.requests[1]?.messages ?? [];
		expect(shape(sent).map((line) => line.split("\n")[0])).toEqual([
			"user:go",
			"user:[turn_aborted]This turn failed before the model finished its response (fatal: boom).",
			"user:again",
		]);
		expect((sent[1] as { text: string }).text).toContain('echo({"text":"a"}) → ok: echo: a');
	});

	it("a call id repeated after a compaction and a resume still gets a fresh id: no tool runs twice", async () => {
		const runs: string[] = [];
		const counted = countedEcho(runs);
		const { session, agent } = await harness(
			scriptByPurpose(
				[
					[callTool("echo", { text: "a" }, "same")],
					[say("ok")],
					[say("compacted and ok")],
					[callTool("echo", { text: "b" }, "same")],
					[say("ok")],
				],
				[[say("[summary]s[/summary]")]],
			),
			{ tools: [counted], settings: { compaction: { maxSessionTurns: 2 } } },
		);
		await runText(session, `first ${"(details) ".repeat(5)}`);
		await runText(session, "second"); // compacts first: the latest Trace file no longer holds the first call
		session.close();
		const resumed = await agent.resumeSession(session.id);
		expect(resumed.context.some((m) => m.type === "tool_call")).toBe(false);
		await runText(resumed, "third");
		expect(runs).toEqual(["same", "same_2"]);
	});
});

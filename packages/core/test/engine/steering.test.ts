import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { createGate } from "../../src/model/gate.js";
import { callTool, holdAt, say } from "../../src/model/scripted.js";
import { cleanup, echoTool, harness, lastDone, ofType, runText, shape, tracedMessages, types } from "../harness.js";

afterEach(cleanup);

describe("Mid-run steering", () => {
	it("steer queues a user message without interrupting the loop; at the next input assembly it is a standalone [user_steering] user text sent alongside that turn's tool outputs", async () => {
		const { session, model } = await harness([[callTool("echo", { text: "a", ms: 20 }, "c1")], [say("noted")]], {
			tools: [echoTool()],
		});
		const out: OmniMessage[] = [];
		let steered: boolean | undefined;
		for await (const m of session.run([userText("go")])) {
			out.push(m);
			if (m.type === "tool_start") steered = session.steer("also check b");
		}
		expect(steered).toBe(true);
		expect(shape(model.requests[1]?.messages ?? [])).toEqual([
			"user:go",
			"call:c1",
			"out:c1:ok",
			"user:[user_steering]also check b[/user_steering]",
		]);
		// Tool outputs are never rewritten.
		expect(ofType(out, "tool_call_output")[0]?.output).toBe("echo: a");
		expect(lastDone(out)?.reason).toBe("model_stop");
	});

	it("when the turn produced no tool calls, steering is sent alone as the continuation input and the Task keeps going instead of ending", async () => {
		const gate = createGate();
		const { session, model } = await harness([[say("Here is my answer"), holdAt(gate)], [say("Adjusted answer")]]);
		const out: OmniMessage[] = [];
		for await (const m of session.run([userText("go")])) {
			out.push(m);
			if (m.type === "assistant_text" && m.text === "Here is my answer") {
				expect(session.steer("make it shorter")).toBe(true);
				gate.release();
			}
		}
		expect(model.requests).toHaveLength(2);
		expect(shape(model.requests[1]?.messages ?? [])).toEqual([
			"user:go",
			"assistant:Here is my answer",
			"user:[user_steering]make it shorter[/user_steering]",
		]);
		expect(ofType(out, "done")).toHaveLength(1);
		expect(lastDone(out)?.reason).toBe("model_stop");
	});

	it("steering is real user input: yielded to the output stream and written to the Trace like any Prompt", async () => {
		const { session, model, home } = await harness([[callTool("echo", { text: "a", ms: 10 })], [say("ok")]], {
			tools: [echoTool()],
		});
		const out: OmniMessage[] = [];
		for await (const m of session.run([userText("go")])) {
			out.push(m);
			if (m.type === "tool_start") session.steer("hurry");
		}
		const yielded = ofType(out, "user_text").map((m) => m.text);
		expect(yielded).toEqual(["go", "[user_steering]hurry[/user_steering]"]);
		expect(model.requests).toHaveLength(2);
		expect(ofType(tracedMessages(home, session.id), "user_text").map((m) => m.text)).toEqual(yielded);
	});

	it("the queue is drained at every input assembly: several steers arrive together, in order", async () => {
		const { session, model } = await harness(
			[[callTool("echo", { text: "a", ms: 20 })], [callTool("echo", { text: "b", ms: 20 })], [say("done")]],
			{ tools: [echoTool()] },
		);
		let starts = 0;
		for await (const m of session.run([userText("go")])) {
			if (m.type === "tool_start") {
				starts++;
				if (starts === 1) {
					session.steer("one");
					session.steer("two");
				} else session.steer("three");
			}
		}
		const steering = (i: number) =>
			shape(model.requests[i]?.messages ?? []).filter((s) => s.includes("[user_steering]"));
		expect(steering(1)).toEqual(["user:[user_steering]one[/user_steering]", "user:[user_steering]two[/user_steering]"]);
		expect(steering(2)).toHaveLength(3);
		expect(steering(2)[2]).toBe("user:[user_steering]three[/user_steering]");
	});

	it("steer returns false when no Task is running (hosts then submit a normal task)", async () => {
		const { session } = await harness([[say("x")]]);
		expect(session.steer("anyone there?")).toBe(false);
		await runText(session, "go");
		expect(session.steer("too late")).toBe(false);
	});

	it("a Task counts as running from the run call: a steer before its first read is accepted and reaches its first request", async () => {
		const { session, model, home } = await harness([[say("x")], [say("y")]]);
		const stream = session.run([userText("go")]);
		expect(session.busy).toBe(true);
		expect(session.steer("also this")).toBe(true);
		for await (const _ of stream) {
			// read to the end
		}
		expect(shape(model.requests[0]?.messages ?? [])).toEqual([
			"user:go",
			"user:[user_steering]also this[/user_steering]",
		]);
		// A run returned before its first read never ran: what it accepted goes to the next Task.
		const unread = session.run([userText("never read")]);
		expect(session.steer("kept")).toBe(true);
		await unread.return();
		expect(session.busy).toBe(false);
		// Recorded, so a resume keeps it too.
		expect(tracedMessages(home, session.id).filter((m) => m.type === "user_text" && m.steer === "kept")).toHaveLength(
			1,
		);
		await runText(session, "next");
		expect(shape(model.requests[1]?.messages ?? []).slice(-2)).toEqual([
			"user:[user_steering]kept[/user_steering]",
			"user:next",
		]);
	});

	it("the queue is discarded when the run exits (abort included): steer is refused from then on, and what was queued is not lost", async () => {
		const gate = createGate();
		const { session, model, home } = await harness([[say("working"), holdAt(gate)], [say("next task")]]);
		const controller = new AbortController();
		let afterAbort: boolean | undefined;
		const first: OmniMessage[] = [];
		for await (const m of session.run([userText("go")], { signal: controller.signal })) {
			first.push(m);
			if (m.type === "assistant_text") {
				session.steer("queued before the abort");
				controller.abort();
				afterAbort = session.steer("after the abort");
			}
		}
		expect(afterAbort).toBe(false);
		// A steer that returned true is recorded as the user input it is (stream and Trace), before the abort…
		const wrapped = "[user_steering]queued before the abort[/user_steering]";
		expect(types(first).slice(-3)).toEqual(["user_text", "abort", "done"]);
		expect(ofType(first, "user_text").at(-1)?.text).toBe(wrapped);
		expect(ofType(tracedMessages(home, session.id), "user_text").map((m) => m.text)).toContain(wrapped);
		// …and reaches the model with the next Task, before its prompt.
		const out = await runText(session, "new task");
		const sent = shape(model.requests[1]?.messages ?? []);
		expect(sent.slice(-2)).toEqual([`user:${wrapped}`, "user:new task"]);
		expect(ofType(out, "user_text").map((m) => m.text)).toEqual(["new task"]);
	});

	it("steering is replayed as ordinary turn input on resume", async () => {
		const { session, agent, model } = await harness(
			[[callTool("echo", { text: "a", ms: 10 })], [say("ok")], [say("after resume")]],
			{ tools: [echoTool()] },
		);
		for await (const m of session.run([userText("go")])) if (m.type === "tool_start") session.steer("steer me");
		session.close();
		const resumed = await agent.resumeSession(session.id);
		await runText(resumed, "more");
		expect(shape(model.requests[2]?.messages ?? [])).toEqual([
			"user:go",
			"call:call_1",
			"out:call_1:ok",
			"user:[user_steering]steer me[/user_steering]",
			"assistant:ok",
			"user:more",
		]);
	});

	it("steer refuses empty text with a clear error", async () => {
		const { session } = await harness([[say("x")]]);
		expect(() => session.steer("  ")).toThrow(/non-empty string/);
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
});

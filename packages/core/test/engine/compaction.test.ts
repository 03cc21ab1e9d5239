import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_COMPACTION_PROMPT } from "../../src/config/system-config.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { createGate } from "../../src/model/gate.js";
import { callTool, fail, holdAt, reportUsage, say } from "../../src/model/scripted.js";
import { sessionDir } from "../../src/trace/trace-files.js";
import {
	cleanup,
	collect,
	echoTool,
	harness,
	lastDone,
	ofType,
	runText,
	scriptByPurpose,
	shape,
	summary,
	tracedMessages,
	types,
} from "../harness.js";

afterEach(cleanup);

const big = (n: number) => "x".repeat(n);
/** A prompt long enough that a short summary is smaller than the conversation it replaces. */
const long = (text: string) => `${text} ${"(details) ".repeat(10)}`;

describe("Compaction triggers", () => {
	it("context: the last token_usage's request.total ≥ maxContextLength compacts before the next request", async () => {
		const { session, model } = await harness(
			scriptByPurpose(
				[[reportUsage({ input: 900, output: 150 }), callTool("echo", { text: big(400) }, "c1")], [say("done")]],
				[summary("echoed a long text")],
			),
			{ tools: [echoTool()], settings: { compaction: { maxContextLength: 1000 } } },
		);
		const out = await runText(session, "go");
		expect(model.requests.map((r) => r.purpose)).toEqual(["turn", "compaction", "turn"]);
		expect(ofType(out, "compaction_begin")).toMatchObject([{ reason: "context", mode: "summarize" }]);
		expect(ofType(out, "compaction_end")).toMatchObject([{ status: "ok" }]);
		expect(shape(model.requests[2]?.messages ?? [])).toEqual([
			"user:[context_summary]echoed a long text[/context_summary]",
		]);
		expect(lastDone(out)?.reason).toBe("model_stop");
	});

	it("turns: the Session's turn count across Tasks reaching maxSessionTurns compacts", async () => {
		const { session, model } = await harness(
			scriptByPurpose([[say("a")], [say("b")], [say("c")]], [summary("two tasks")]),
			{
				settings: { compaction: { maxSessionTurns: 2 } },
			},
		);
		await runText(session, long("one"));
		await runText(session, long("two"));
		const out = await runText(session, "three");
		expect(model.requests.map((r) => r.purpose)).toEqual(["turn", "turn", "compaction", "turn"]);
		expect(ofType(out, "compaction_begin")[0]?.reason).toBe("turns");
		// The new Task's prompt goes into the fresh context, after the summary.
		expect(shape(model.requests[3]?.messages ?? [])).toEqual([
			"user:[context_summary]two tasks[/context_summary]",
			"user:three",
		]);
	});

	it("manual: session.compact() compacts now and streams its events", async () => {
		const { session, model } = await harness(scriptByPurpose([[say("hello")]], [summary("greeted")]));
		await runText(session, long("hi"));
		const out = await collect(session.compact());
		expect(types(out)).toEqual([
			"compaction_begin",
			"request_begin",
			"token_usage",
			"request_end",
			"compaction_end",
			"user_text",
		]);
		expect(ofType(out, "compaction_begin")[0]?.reason).toBe("manual");
		expect(ofType(out, "request_begin")[0]?.purpose).toBe("compaction");
		expect(shape(session.context)).toEqual(["user:[context_summary]greeted[/context_summary]"]);
		expect(model.requests[1]?.purpose).toBe("compaction");
	});

	it("a maxContextLength of 0 or less turns the context trigger off", async () => {
		const { session, model } = await harness(
			scriptByPurpose([[reportUsage({ input: 10_000_000 }), say("a")], [say("b")]], []),
			{
				settings: { compaction: { maxContextLength: 0 } },
			},
		);
		await runText(session, "one");
		await runText(session, "two");
		expect(model.requests.map((r) => r.purpose)).toEqual(["turn", "turn"]);
	});
});

describe("summarize", () => {
	it("the compaction request is the previous request plus the compaction prompt, with the same system prompt and toolset; thinking keeps its default", async () => {
		const { session, model } = await harness(
			scriptByPurpose([[callTool("echo", { text: "a" }, "c1")], [say("ok")]], [summary("s")]),
			{ tools: [echoTool()], system: "Be brief.", settings: { compaction: { maxSessionTurns: 1 } } },
		);
		await runText(session, "go", { thinkingLevel: "high" });
		const [previous, compaction] = model.requests;
		expect(compaction?.purpose).toBe("compaction");
		expect(compaction?.system).toBe(previous?.system);
		expect(compaction?.tools).toEqual(previous?.tools);
		expect(compaction?.messages.slice(0, previous?.messages.length)).toEqual(previous?.messages);
		expect(compaction?.messages.at(-1)).toMatchObject({ type: "user_text", text: DEFAULT_COMPACTION_PROMPT });
		expect(compaction?.thinkingLevel).toBeUndefined();
		expect(model.requests[2]?.thinkingLevel).toBe("high");
	});

	it("the summary continues as a [context_summary] user text in a fresh model context, and the Trace rotates: one file, one model context", async () => {
		const { session, model, home } = await harness(
			scriptByPurpose([[say("first")], [say("second")]], [summary("the gist")]),
			{
				settings: { compaction: { maxSessionTurns: 1 } },
			},
		);
		await runText(session, long("one"));
		const out = await runText(session, "two");
		const dir = sessionDir(home, session.id);
		expect(existsSync(join(dir, "trace_002.jsonl"))).toBe(true);
		const first = tracedMessages(home, session.id, 1);
		const second = tracedMessages(home, session.id, 2);
		expect(types(first).slice(-5)).toEqual([
			"compaction_begin",
			"request_begin",
			"token_usage",
			"request_end",
			"compaction_end",
		]);
		expect(second[0]).toMatchObject({ type: "user_text", text: "[context_summary]the gist[/context_summary]" });
		expect(shape(model.requests[2]?.messages ?? [])).toEqual([
			"user:[context_summary]the gist[/context_summary]",
			"user:two",
		]);
		// seq keeps growing across the rotation.
		expect(second[0]?.seq).toBe((first.at(-1)?.seq ?? 0) + 1);
		expect(lastDone(out)?.reason).toBe("model_stop");
	});

	it("a resumed Session continues from the latest Trace file: the summary and what followed", async () => {
		const { session, agent, model } = await harness(
			scriptByPurpose([[say("first")], [say("second")], [say("third")]], [summary("gist")]),
			{
				settings: { compaction: { maxSessionTurns: 1 } },
			},
		);
		await runText(session, "one");
		await runText(session, "two");
		session.close();
		const resumed = await agent.resumeSession(session.id);
		expect(shape(resumed.context)).toEqual([
			"user:[context_summary]gist[/context_summary]",
			"user:two",
			"assistant:second",
		]);
		expect(resumed.compactability()).toBe("ok");
		await runText(resumed, "three");
		expect(model.requests.at(-1)?.purpose).toBe("turn");
	});

	it("accepts the older <summary> form in a reply", async () => {
		const { session } = await harness(scriptByPurpose([[say("hello")]], [[say("<summary>old form</summary>")]]));
		await runText(session, long("hi"));
		await collect(session.compact());
		expect(shape(session.context)).toEqual(["user:[context_summary]old form[/context_summary]"]);
	});
});

describe("discard", () => {
	it("drops the old context and rotates the Trace, without asking the model", async () => {
		const { session, model, home } = await harness(scriptByPurpose([[say("a")], [say("b")]], []), {
			settings: { compaction: { mode: "discard" } },
		});
		await runText(session, "one");
		const out = await collect(session.compact());
		expect(types(out)).toEqual(["compaction_begin", "compaction_end"]);
		expect(ofType(out, "compaction_begin")[0]?.mode).toBe("discard");
		expect(session.context).toEqual([]);
		expect(existsSync(join(sessionDir(home, session.id), "trace_002.jsonl"))).toBe(true);
		await runText(session, "two");
		expect(shape(model.requests[1]?.messages ?? [])).toEqual(["user:two"]);
	});

	it("mid-Task, the fresh context begins with the Task's prompt, restated: the next request is never empty", async () => {
		const { session, model, home } = await harness(
			scriptByPurpose(
				[[reportUsage({ input: 900, output: 150 }), callTool("echo", { text: "x" }, "c1")], [say("done")]],
				[],
			),
			{ tools: [echoTool()], settings: { compaction: { mode: "discard", maxContextLength: 1000 } } },
		);
		const out = await runText(session, "go");
		expect(model.requests.map((r) => r.purpose)).toEqual(["turn", "turn"]);
		expect(shape(model.requests[1]?.messages ?? [])).toEqual(["user:go"]);
		const prompts = ofType(out, "user_text");
		expect(prompts.map((m) => m.text)).toEqual(["go", "go"]);
		expect(new Set(prompts.map((m) => m.id)).size).toBe(2);
		expect(prompts[1]?.seq).toBeGreaterThan(prompts[0]?.seq ?? Infinity);
		// The new Trace file is the model's whole context: the prompt is its first message.
		expect(shape(tracedMessages(home, session.id, 2).filter((m) => m.type === "user_text"))).toEqual(["user:go"]);
		expect(lastDone(out)?.reason).toBe("model_stop");
	});

	it("a provider's context overflow retries the Task's prompt, not an empty request", async () => {
		const overflow = fail({ class: "fatal", message: "context_length_exceeded", status: 400, contextOverflow: true });
		const { session, model } = await harness(scriptByPurpose([[say("a")], [overflow], [say("fits now")]], []), {
			settings: { compaction: { mode: "discard" } },
		});
		await runText(session, "hi");
		const out = await runText(session, "a huge request");
		expect(model.requests.map((r) => r.purpose)).toEqual(["turn", "turn", "turn"]);
		expect(shape(model.requests[2]?.messages ?? [])).toEqual(["user:a huge request"]);
		expect(lastDone(out)?.reason).toBe("model_stop");
	});
});

describe("validation", () => {
	it("a reply whose summary is empty is rejected, and the request resent at once with a note", async () => {
		const { session, model } = await harness(
			scriptByPurpose([[say("hello")]], [[say("I'd rather not.")], summary("fine")]),
		);
		await runText(session, "hi");
		const out = await collect(session.compact());
		expect(ofType(out, "compaction_end")).toMatchObject([{ status: "ok" }]);
		const resent = model.requests[2]?.messages ?? [];
		expect(shape(resent).slice(-2)[0]).toBe("assistant:I'd rather not.");
		expect((resent.at(-1) as { text: string }).text).toMatch(/no \[summary\]…\[\/summary\] block/);
		expect(ofType(out, "request_end").map((e) => e.retry_in_ms)).toEqual([undefined, undefined]);
	});

	it("a reply that calls a tool is rejected: each call is answered with a failed output, pairing intact, and resent at once", async () => {
		const { session, model } = await harness(
			scriptByPurpose(
				[[say("hello")]],
				[[callTool("echo", { text: "x" }, "k1"), callTool("echo", { text: "y" }, "k2")], summary("ok")],
			),
			{ tools: [echoTool()] },
		);
		await runText(session, "hi");
		await collect(session.compact());
		const resent = model.requests[2]?.messages ?? [];
		expect(shape(resent).slice(-4)).toEqual(["call:k1", "call:k2", "out:k1:error", "out:k2:error"]);
		expect(resent.at(-1)).toMatchObject({
			output: expect.stringContaining("not available while the conversation is being compacted"),
		});
		expect(shape(session.context)).toEqual(["user:[context_summary]ok[/context_summary]"]);
	});

	it("a summary not smaller than what it replaces is rejected", async () => {
		const { session, model } = await harness(scriptByPurpose([[say("hi")]], [summary(big(500)), summary("short")]));
		await runText(session, "hello");
		await collect(session.compact());
		expect(model.requests.filter((r) => r.purpose === "compaction")).toHaveLength(2);
		expect(shape(session.context)).toEqual(["user:[context_summary]short[/context_summary]"]);
	});

	it("after 5 rejected replies the compaction ends failed, keeping the original context and Trace file", async () => {
		const { session, model, home } = await harness(scriptByPurpose([[say("hello")]], [[say("no summary")]]));
		await runText(session, "hi");
		const before = session.context;
		const out = await collect(session.compact());
		expect(model.requests.filter((r) => r.purpose === "compaction")).toHaveLength(5);
		expect(ofType(out, "compaction_end")).toMatchObject([{ status: "failed", error: { kind: "rejected" } }]);
		expect(session.context).toEqual(before);
		expect(existsSync(join(sessionDir(home, session.id), "trace_002.jsonl"))).toBe(false);
	});

	it("the context trigger reads the last turn's total, not a compaction's request (after a resume, and live)", async () => {
		// Manual compactions whose replies are all rejected, each reporting a total over the limit.
		const { session, model, agent } = await harness(
			scriptByPurpose(
				[[reportUsage({ input: 100, output: 10 }), say("hello")], [say("after resume")], [say("live")]],
				[[reportUsage({ input: 5000, output: 10 }), say("no summary")]],
			),
			{ settings: { compaction: { maxContextLength: 1000 } } },
		);
		const purposes = () => model.requests.map((r) => (r.purpose === "compaction" ? "C" : "t")).join("");
		await runText(session, "hi");
		expect(ofType(await collect(session.compact()), "compaction_end")).toMatchObject([{ status: "failed" }]);
		await session.close();
		const resumed = await agent.resumeSession(session.id);
		await runText(resumed, "after resume");
		expect(purposes()).toBe("tCCCCCt");
		expect(ofType(await collect(resumed.compact()), "compaction_end")).toMatchObject([{ status: "failed" }]);
		await runText(resumed, "live");
		expect(purposes()).toBe("tCCCCCtCCCCCt");
	});

	it("the context trigger ignores a failed request's total, live and after a resume alike", async () => {
		const fatal = fail({ class: "fatal", message: "invalid_request_error", status: 400 });
		const { session, model, agent } = await harness(
			scriptByPurpose(
				[
					[reportUsage({ input: 100, output: 10 }), say("hello")],
					[reportUsage({ input: 5000, output: 10 }), fatal],
					[say("after resume")],
					[reportUsage({ input: 5000, output: 10 }), fatal],
					[say("live")],
				],
				[[say("[summary]s[/summary]")]],
			),
			{ settings: { compaction: { maxContextLength: 1000 } } },
		);
		const purposes = () => model.requests.map((r) => (r.purpose === "compaction" ? "C" : "t")).join("");
		await runText(session, "hi");
		expect(lastDone(await runText(session, "fails"))?.reason).toBe("error");
		await session.close();
		const resumed = await agent.resumeSession(session.id);
		await runText(resumed, "after resume");
		expect(purposes()).toBe("ttt");
		expect(lastDone(await runText(resumed, "fails again"))?.reason).toBe("error");
		await runText(resumed, "live");
		expect(purposes()).toBe("ttttt");
	});

	it("a failed compaction keeps the original context and retries on the next trigger, not after a pause that grows to dozens of turns", async () => {
		const turns = Array.from({ length: 12 }, (_, i) => [say(`turn ${i}`)]);
		const { session, model } = await harness(scriptByPurpose(turns, [[say("no summary")]]), {
			settings: { compaction: { maxSessionTurns: 1 } },
		});
		for (let i = 0; i < 8; i++) await runText(session, `task ${i}`);
		const purposes = model.requests.map((r) => (r.purpose === "compaction" ? "C" : "t"));
		// Every Task after the first triggers; each failed compaction (5 rejected replies) is
		// followed by the turn it delayed, and the next Task's trigger tries again.
		expect(purposes.join("")).toBe(`t${`${"C".repeat(5)}t`.repeat(7)}`);
		expect(session.context.filter((m) => m.type === "user_text")).toHaveLength(8);
	});
});

describe("transport failures during compaction", () => {
	beforeEach(() => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
	});
	afterEach(() => {
		vi.useRealTimers();
	});

	it("follow the compaction's own cap of 3 reconnects (250, 500, 1000 ms), then the compaction fails and the old context stays", async () => {
		const blip = fail({ class: "timeout", message: "socket hang up" });
		const { session, model } = await harness(scriptByPurpose([[say("hello")]], [[blip]]));
		const run = collect(session.run([userText("hi")]));
		await vi.advanceTimersByTimeAsync(10);
		await run;
		const before = session.context;
		const compaction = collect(session.compact());
		await vi.advanceTimersByTimeAsync(2000);
		const out = await compaction;
		expect(ofType(out, "request_end").map((e) => [e.status, e.retry_in_ms])).toEqual([
			["timeout", 250],
			["timeout", 500],
			["timeout", 1000],
			["failed", undefined],
		]);
		expect(model.requests.filter((r) => r.purpose === "compaction")).toHaveLength(4);
		expect(ofType(out, "compaction_end")[0]?.status).toBe("failed");
		expect(session.context).toEqual(before);
	});
});

describe("an auth failure during a Task's compaction", () => {
	it("ends the Task with that error: no request is made with a credential the provider refused", async () => {
		const refused = fail({ class: "auth", message: "invalid x-api-key", status: 401 });
		const { session, model } = await harness(
			scriptByPurpose(
				[[reportUsage({ input: 900, output: 150 }), callTool("echo", { text: "a" }, "c1")], [say("never")]],
				[[refused]],
			),
			{ tools: [echoTool()], settings: { compaction: { maxContextLength: 1000 } } },
		);
		const out = await runText(session, "go");
		expect(model.requests.map((r) => r.purpose)).toEqual(["turn", "compaction"]);
		expect(ofType(out, "request_end").map((e) => e.status)).toEqual(["ok", "auth"]);
		expect(ofType(out, "compaction_end")).toMatchObject([{ status: "failed" }]);
		expect(lastDone(out)).toMatchObject({ reason: "error", error: { kind: "auth", message: "invalid x-api-key" } });
	});
});

describe("around compaction", () => {
	it("steering that arrives during a compaction is delivered right after it", async () => {
		const gate = createGate();
		const { session, model } = await harness(
			scriptByPurpose([[callTool("echo", { text: "a" }, "c1")], [say("done")]], [[holdAt(gate), ...summary("s")]]),
			{ tools: [echoTool()], settings: { compaction: { maxSessionTurns: 1 } } },
		);
		const out: OmniMessage[] = [];
		for await (const m of session.run([userText("go")])) {
			out.push(m);
			if (m.type === "compaction_begin") {
				await gate.reached;
				expect(session.steer("while you were compacting")).toBe(true);
				gate.release();
			}
		}
		expect(shape(model.requests[2]?.messages ?? [])).toEqual([
			"user:[context_summary]s[/context_summary]",
			"user:[user_steering]while you were compacting[/user_steering]",
		]);
		expect(lastDone(out)?.reason).toBe("model_stop");
	});

	it("a second run or compaction during a compaction is refused: one Task or one compaction at a time", async () => {
		const gate = createGate();
		const { session } = await harness(scriptByPurpose([[say("a")]], [[holdAt(gate), ...summary("s")]]));
		await runText(session, "hi");
		const compaction = collect(session.compact());
		await gate.reached;
		expect(() => session.run([userText("again")])).toThrow(/busy/);
		expect(() => session.compact()).toThrow(/busy/);
		gate.release();
		await compaction;
		expect(session.busy).toBe(false);
	});

	it("compactability(): empty, ok, just_compacted, and unsupported for a model that cannot compact", async () => {
		const { session } = await harness(scriptByPurpose([[say("a")], [say("b")]], [summary("s")]));
		expect(session.compactability()).toBe("empty");
		await runText(session, "hi");
		expect(session.compactability()).toBe("ok");
		await collect(session.compact());
		expect(session.compactability()).toBe("just_compacted");
		const out = await collect(session.compact());
		expect(ofType(out, "compaction_end")[0]).toMatchObject({ status: "failed", error: { kind: "just_compacted" } });
		await runText(session, "more");
		expect(session.compactability()).toBe("ok");
		const { session: other } = await harness([[say("a")]], {}, { supportsCompaction: false });
		await runText(other, "hi");
		expect(other.compactability()).toBe("unsupported");
	});

	it("a provider's context-overflow error compacts, then the request is retried once", async () => {
		const overflow = fail({
			class: "fatal",
			message: "prompt is too long: 210000 tokens > 200000 maximum",
			status: 400,
			contextOverflow: true,
		});
		const { session, model } = await harness(
			scriptByPurpose([[say("a")], [overflow], [say("fits now")]], [summary("s")]),
		);
		await runText(session, "hi");
		const out = await runText(session, "a huge request");
		expect(model.requests.map((r) => r.purpose)).toEqual(["turn", "turn", "compaction", "turn"]);
		expect(ofType(out, "request_end").map((e) => e.status)).toEqual(["failed", "ok", "ok"]);
		expect(ofType(out, "compaction_begin")[0]?.reason).toBe("context");
		expect(lastDone(out)?.reason).toBe("model_stop");
		// The compaction quoted the user's newest request into the summary's context; the retry starts from it.
		expect(shape(model.requests[3]?.messages ?? [])).toEqual(["user:[context_summary]s[/context_summary]"]);
	});

	it("a second context overflow in the same Task ends it with the error", async () => {
		const overflow = fail({ class: "fatal", message: "context_length_exceeded", status: 400, contextOverflow: true });
		const { session } = await harness(scriptByPurpose([[overflow], [overflow]], [summary("s")]));
		const out = await runText(session, "go");
		expect(lastDone(out)).toMatchObject({
			reason: "error",
			error: { kind: "fatal", message: "context_length_exceeded" },
		});
	});

	it("the compaction prompt is configurable, and the default asks for the goal, state, decisions, files, next steps and the newest request verbatim", async () => {
		for (const needle of [
			"Goal",
			"State of the work",
			"Decisions",
			"Files",
			"Next steps",
			"word for word",
			"[summary]",
		]) {
			expect(DEFAULT_COMPACTION_PROMPT).toContain(needle);
		}
		const { session, model } = await harness(scriptByPurpose([[say("a")]], [summary("s")]), {
			settings: { compaction: { prompt: "Summarize, please." } },
		});
		await runText(session, "hi");
		await collect(session.compact());
		expect(model.requests[1]?.messages.at(-1)).toMatchObject({ text: "Summarize, please." });
	});
});

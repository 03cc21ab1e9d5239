import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent } from "../../src/engine/agent/agent.js";
import { HostStop } from "../../src/engine/session/errors.js";
import { userText } from "../../src/messages/constructors.js";
import type { OmniMessage } from "../../src/messages/omni-message.js";
import { createGate } from "../../src/model/gate.js";
import { callTool, holdAt, say } from "../../src/model/scripted.js";
import { tool } from "../../src/tools/tool.js";
import {
	cleanup,
	collect,
	echoTool,
	hangOr,
	harness,
	lastDone,
	nextRequestLiveAndResumed,
	ofType,
	recordedWrite,
	runText,
	shape,
	tempDir,
	tracedMessages,
	types,
} from "../harness.js";

afterEach(cleanup);

/** Reads a run until `until` is true of a message, then aborts; returns everything read. */
async function abortWhen(
	stream: AsyncGenerator<OmniMessage>,
	controller: AbortController,
	until: (m: OmniMessage, seen: OmniMessage[]) => boolean,
): Promise<OmniMessage[]> {
	const seen: OmniMessage[] = [];
	for await (const m of stream) {
		seen.push(m);
		if (!controller.signal.aborted && until(m, seen)) controller.abort();
	}
	return seen;
}

describe("Interruption and carry-over", () => {
	it("When signal fires, the engine emits an abort event and returns; only done follows", async () => {
		const gate = createGate();
		const { session } = await harness([[say("thinking about it"), holdAt(gate), say("never")]]);
		const controller = new AbortController();
		const out = await abortWhen(
			session.run([userText("go")], { signal: controller.signal }),
			controller,
			(m) => m.type === "assistant_text",
		);
		expect(types(out).slice(-2)).toEqual(["abort", "done"]);
		expect(lastDone(out)).toMatchObject({ reason: "user_abort" });
		expect(session.busy).toBe(false);
	});

	it("Case B — the model's output was incomplete: the whole turn is flattened into one [turn_aborted] user text carrying the partial output", async () => {
		const gate = createGate();
		const { session, model } = await harness(
			[
				[
					say("I will look at ", ["I will ", "look at "]),
					callTool("echo", { text: "x" }, "c1"),
					say("and then", ["and ", "then"]),
					holdAt(gate),
				],
				[say("ok")],
			],
			{ tools: [echoTool()] },
		);
		const controller = new AbortController();
		const out = await abortWhen(
			session.run([userText("go")], { signal: controller.signal }),
			controller,
			(_m, seen) => seen.some((s) => s.type === "tool_call_output") && gate.isReached,
		);
		expect(ofType(out, "abort")[0]).toMatchObject({ carryOver: "B" });
		await runText(session, "next");
		const sent = model.requests[1]?.messages ?? [];
		// The partial turn's messages never joined the context: only the prompt, the flattened turn and the new prompt.
		expect(shape(sent).map((s) => s.split("\n")[0])).toEqual([
			"user:go",
			"user:[turn_aborted]The user interrupted this turn before the model finished its response.",
			"user:next",
		]);
		const flattened = (sent[1] as { text: string }).text;
		expect(flattened).toMatch(/^\[turn_aborted\][\s\S]*\[\/turn_aborted\]$/);
		expect(flattened).toContain("I will look at ");
		expect(flattened).toContain("and then");
		expect(flattened).toContain('echo({"text":"x"}) → ok: echo: x');
	});

	it("Case A — the model's output had completed: finished results are re-sent as tool_call_outputs and unfinished calls get an [interrupted: tool aborted by user] placeholder", async () => {
		// The model streams on once the quick call's output is out (an event, not a time: a busy
		// machine may take any time to run it); the slow one is running when the output completes.
		const quickDone = createGate();
		const { session, model } = await harness(
			[
				[
					callTool("echo", { text: "quick" }, "done1"),
					holdAt(quickDone),
					callTool("echo", { text: "slow", ms: 10_000 }, "slow1"),
				],
				[say("resumed")],
			],
			{ tools: [echoTool()] },
		);
		const controller = new AbortController();
		const out = await abortWhen(session.run([userText("go")], { signal: controller.signal }), controller, (m) => {
			if (m.type === "tool_call_output" && m.callId === "done1") quickDone.release();
			return m.type === "request_end";
		});
		expect(ofType(out, "abort")[0]).toMatchObject({ carryOver: "A" });
		await runText(session, "continue");
		const sent = model.requests[1]?.messages ?? [];
		expect(shape(sent)).toEqual([
			"user:go",
			"call:done1",
			"call:slow1",
			"out:done1:ok",
			"out:slow1:interrupted",
			"user:continue",
		]);
		expect(sent[4]).toMatchObject({ output: "[interrupted: tool aborted by user]" });
		expect(sent[3]).toMatchObject({ output: "echo: quick" });
	});

	it("Carry-over enters the model context only — it is never written to the Trace", async () => {
		const { session, home, model } = await harness(
			[[callTool("echo", { text: "slow", ms: 10_000 }, "s1")], [say("ok")]],
			{ tools: [echoTool()] },
		);
		const controller = new AbortController();
		await abortWhen(
			session.run([userText("go")], { signal: controller.signal }),
			controller,
			// Once the output completed (Case A), while the tool still runs.
			(m) => m.type === "request_end",
		);
		await runText(session, "again");
		expect(shape(model.requests[1]?.messages ?? [])).toContain("out:s1:interrupted");
		const traced = tracedMessages(home, session.id);
		expect(traced.filter((m) => m.type === "tool_call_output")).toEqual([]);
		expect(traced.some((m) => m.type === "user_text" && m.text.includes("interrupted"))).toBe(false);
	});

	it("the signal firing while waiting on approve is an abort, not a deny", async () => {
		const write = tool({ name: "write", description: "w", parameters: z.object({}), execute: async () => "wrote" });
		const { session, model } = await harness([[callTool("write", {}, "w1")], [say("ok")]], { tools: [write] });
		const controller = new AbortController();
		let approveSignal: AbortSignal | undefined;
		const out = await collect(
			session.run([userText("go")], {
				signal: controller.signal,
				approve: (_call, { signal }) => {
					approveSignal = signal;
					setTimeout(() => controller.abort(), 5);
					return new Promise(() => {}); // the person never answers
				},
			}),
		);
		expect(types(out)).not.toContain("approval_decision");
		expect(types(out)).not.toContain("tool_call_output");
		expect(types(out).slice(-2)).toEqual(["abort", "done"]);
		expect(approveSignal?.aborted).toBe(true);
		await runText(session, "next");
		expect(shape(model.requests[1]?.messages ?? [])).toEqual(["user:go", "call:w1", "out:w1:interrupted", "user:next"]);
	});

	it("the generator returns at the signal whatever the tools are doing; tools get the signal", async () => {
		let toolSignal: AbortSignal | undefined;
		// The tool ignores its signal and finishes only when the test lets it: the generator can
		// only return before that if it does not wait on the tool.
		const late = createGate();
		const started = createGate();
		let finishedLate: Promise<string> | undefined;
		const stubborn = tool({
			name: "stubborn",
			description: "ignores its signal",
			parameters: z.object({}),
			readOnly: true,
			execute: (_args, ctx) => {
				toolSignal = ctx.signal;
				started.release();
				finishedLate = late.wait().then(() => "finished late");
				return finishedLate;
			},
		});
		const { session } = await harness([[callTool("stubborn", {}, "s")], [say("x")]], { tools: [stubborn] });
		const controller = new AbortController();
		const seen: OmniMessage[] = [];
		for await (const m of session.run([userText("go")], { signal: controller.signal })) {
			seen.push(m);
			if (m.type === "tool_start") void started.wait().then(() => controller.abort());
		}
		expect(late.isReleased).toBe(false);
		expect(toolSignal?.aborted).toBe(true);
		// The tool finishing later emits nothing: after abort, only done.
		late.release();
		await finishedLate;
		await new Promise((r) => setImmediate(r));
		expect(types(seen).slice(-2)).toEqual(["abort", "done"]);
		expect(ofType(seen, "tool_call_output")).toEqual([]);
	});

	it("a signal that has already fired ends the Task before any request; its prompt is shown and kept for the next run", async () => {
		const { session, model } = await harness([[say("never")], [say("ok")]]);
		const controller = new AbortController();
		controller.abort();
		const out = await runText(session, "go", { signal: controller.signal });
		expect(types(out)).toEqual(["user_text", "abort", "done"]);
		expect(model.requests).toHaveLength(0);
		await runText(session, "again");
		expect(model.requests[0]?.messages.map((m) => (m.type === "user_text" ? m.text : m.type))).toEqual(["go", "again"]);
	});

	it("a consumer that stops reading ends the Task like an abort and frees the Session", async () => {
		const gate = createGate();
		const { session } = await harness([[say("a"), holdAt(gate)], [say("second task")]]);
		for await (const m of session.run([userText("go")])) {
			if (m.type === "assistant_text") break;
		}
		expect(session.busy).toBe(false);
		const out = await runText(session, "again");
		expect(lastDone(out)?.reason).toBe("model_stop");
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
});

describe("a model that ignores its signal", () => {
	it("cannot hold the Task: the generator still returns at the abort, with abort then done", async () => {
		const deaf = {
			id: "deaf:model",
			streamGenerate: () => ({
				[Symbol.asyncIterator]: () => ({
					next: () => new Promise<never>(() => {}),
				}),
			}),
		};
		const agent = await createAgent({ agentId: "a", model: deaf, home: tempDir(), builtins: false });
		const session = await agent.createSession({ workspaceDir: tempDir() });
		const controller = new AbortController();
		const seen: OmniMessage[] = [];
		for await (const m of session.run([userText("go")], { signal: controller.signal })) {
			seen.push(m);
			if (m.type === "request_begin") setTimeout(() => controller.abort(), 10);
		}
		// It returned at all: the model never answers, so an engine that waited on it would still be waiting.
		expect(types(seen).slice(-4)).toEqual(["token_usage", "request_end", "abort", "done"]);
		expect(ofType(seen, "request_end")[0]?.status).toBe("aborted");
		expect(session.busy).toBe(false);
	});

	it("cannot outlast a first-byte timeout: it ends the attempt", async () => {
		const deaf = {
			id: "deaf:model",
			streamGenerate: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise<never>(() => {}) }) }),
		};
		const agent = await createAgent({
			agentId: "a",
			model: deaf,
			home: tempDir(),
			builtins: false,
			settings: { timeouts: { firstByteMs: 50 }, reconnect: { maxRetries: 0 } },
		});
		const session = await agent.createSession({ workspaceDir: tempDir() });
		const out = await hangOr(runText(session, "go"));
		expect(out).not.toBe("hung");
		expect(lastDone(out as OmniMessage[])).toMatchObject({
			reason: "error",
			error: { kind: "timeout", message: "no first byte within 50 ms" },
		});
		// Nobody aborted it: the request failed, and says why.
		expect(ofType(out as OmniMessage[], "request_end")).toMatchObject([
			{ status: "failed", error: { kind: "timeout", message: "no first byte within 50 ms" } },
		]);
		expect(types(out as OmniMessage[]).slice(-2)).toEqual(["request_end", "done"]);
	});

	it("a host's stop (HostStop) ends the Task as an abort does, and done says who stopped it; a person's abort says nothing more", async () => {
		for (const [reason, error] of [
			[new HostStop("the server shut down"), { kind: "host_stop", message: "the server shut down" }],
			[undefined, undefined],
		] as const) {
			const gate = createGate();
			const { session } = await harness([[say("working"), holdAt(gate)]]);
			const controller = new AbortController();
			const out = await abortWhen(session.run([userText("go")], { signal: controller.signal }), controller, (m) => {
				if (m.type !== "assistant_text") return false;
				controller.abort(reason);
				return false;
			});
			expect(types(out).slice(-2)).toEqual(["abort", "done"]);
			expect(lastDone(out)?.reason).toBe("user_abort");
			expect(lastDone(out)?.error).toEqual(error);
		}
	});

	it("a Task a failure ends (here an unresponsive model) still gives its open calls one decision and one output each", async () => {
		// Two complete calls, then silence that ignores the abort: the idle timeout fails the Task.
		const deaf = {
			id: "deaf:model",
			async *streamGenerate() {
				yield { type: "tool_call" as const, callId: "w1", name: "writer", arguments: "{}" };
				yield { type: "tool_call" as const, callId: "r1", name: "echo", arguments: '{"text":"y"}' };
				await new Promise<never>(() => {});
			},
		};
		const writer = tool({ name: "writer", description: "w", parameters: z.object({}), execute: async () => "wrote" });
		const agent = await createAgent({
			agentId: "a",
			model: deaf,
			home: tempDir(),
			builtins: false,
			checkpoints: false,
			tools: [writer, echoTool()],
			settings: { timeouts: { idleMs: 50, firstByteMs: 50 }, reconnect: { maxRetries: 0 } },
		});
		const session = await agent.createSession({ workspaceDir: tempDir() });
		const out = (await hangOr(
			collect(session.run([userText("go")], { approve: () => new Promise(() => {}) })),
		)) as OmniMessage[];
		expect(lastDone(out)).toMatchObject({ reason: "error" });
		for (const callId of ["w1", "r1"]) {
			expect(
				out.filter((m) => m.type === "approval_decision" && m.callId === callId),
				callId,
			).toHaveLength(1);
			expect(
				out.filter((m) => m.type === "tool_call_output" && m.callId === callId),
				callId,
			).toHaveLength(1);
		}
		// The person was asked about the write: its denial names the question; nothing ran it.
		const asked = ofType(out, "confirmation_required")[0];
		expect(ofType(out, "approval_decision").find((m) => m.callId === "w1")).toMatchObject({
			decision: "deny",
			by: "policy",
			correlationId: asked?.correlationId,
		});
		expect(ofType(out, "tool_call_output").find((m) => m.callId === "w1")?.status).toBe("interrupted");
		expect(types(out).at(-1)).toBe("done");
		// The Trace holds what the stream showed.
		const traced = tracedMessages(agent.home, session.id);
		expect(traced.filter((m) => m.type === "tool_call_output")).toHaveLength(2);
	});

	it("a Session resumed after a person stopped a turn mid-output sends what the live Session would: the turn as one [turn_aborted] note, its call never run", async () => {
		const runs: string[] = [];
		const writer = recordedWrite(runs);
		const { live, resumed } = await nextRequestLiveAndResumed({ tools: [writer] }, async () => {
			const gate = createGate();
			return {
				turns: [[say("I will write"), callTool("write", { text: "a" }, "w1"), holdAt(gate)], [say("ok")]],
				async runFirst(session) {
					const controller = new AbortController();
					for await (const m of session.run([userText("go")], {
						signal: controller.signal,
						approve: async () => "allow",
					})) {
						if (m.type === "tool_call") gate.reached.then(() => controller.abort());
					}
				},
			};
		});
		expect(resumed).toEqual(live);
		expect(live).toEqual([
			"user:go",
			expect.stringMatching(
				/^user:\[turn_aborted\]The user interrupted this turn[\s\S]*Partial response:\nI will write[\s\S]*- write\(\{"text":"a"\}\) → did not finish/,
			),
			"user:next",
		]);
		expect(runs).toEqual([]);
	});

	it("a Session resumed after a failure ended a turn mid-output sends what the live Session would: the turn as one [turn_aborted] note", async () => {
		const { live, resumed } = await nextRequestLiveAndResumed({ tools: [echoTool()] }, async () => ({
			turns: [
				[
					say("I will echo"),
					callTool("echo", { text: "a" }, "c1"),
					{ type: "delay", ms: 20 },
					{ type: "fail", failure: { class: "fatal", message: "boom" } },
				],
				[say("ok")],
			],
			async runFirst(session) {
				expect(lastDone(await runText(session, "go"))?.reason).toBe("error");
			},
		}));
		expect(resumed).toEqual(live);
		expect(live).toEqual([
			"user:go",
			expect.stringMatching(
				/^user:\[turn_aborted\]This turn failed before the model finished its response \(fatal: boom\)[\s\S]*I will echo[\s\S]*- echo\(\{"text":"a"\}\) → ok: echo: a/,
			),
			"user:next",
		]);
	});
});

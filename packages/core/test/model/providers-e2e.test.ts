import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/engine/agent/agent.js";
import type { RunOptions, Session } from "../../src/engine/session/session.js";
import { userText } from "../../src/messages/constructors.js";
import type { JsonObject, OmniMessage } from "../../src/messages/omni-message.js";
import type { FakeReply, Fault } from "../../src/testing/fake-provider/index.js";
import { FakeProviderServer } from "../../src/testing/fake-provider/index.js";
import { cleanup, collect, echoTool, lastDone, ofType, tempDir } from "../harness.js";

/** A server per test: a test that fails cannot leave replies queued for the next. */
let server: FakeProviderServer;
beforeEach(async () => {
	server = await FakeProviderServer.start();
});
afterEach(async () => {
	await server.close();
	cleanup();
});

type Wire = "openai-compatible" | "openai" | "anthropic" | "openai-chat";

/** An agent configured the way a user would: omniloop.yaml with a `${ENV}` key, pointed at the fake server. The model name is a reasoning model's, since the OpenAI provider sends reasoning options only for those. */
async function agentOn(provider: Wire, env: NodeJS.ProcessEnv = { FAKE_KEY: "good-key" }) {
	const configDir = tempDir();
	writeFileSync(
		join(configDir, "omniloop.yaml"),
		[
			"models:",
			`  main: { provider: ${provider}, model: gpt-5-mini, baseURL: "${server.url}/v1", apiKey: "\${FAKE_KEY}" }`,
			"agents:",
			"  default_agent: { model: main, system: You are terse. }",
		].join("\n"),
	);
	const agent = await createAgent({ agentId: "default_agent", configDir, home: tempDir(), env, tools: [echoTool()] });
	const session = await agent.createSession({ workspaceDir: tempDir() });
	return { agent, session, env };
}

const newRequests = <T>(fn: () => Promise<T>) => {
	const before = server.requests.length;
	return fn().then((result) => ({ result, requests: server.requests.slice(before) }));
};

/** Runs a Task, skipping each reconnect wait so the default 250 ms… ladder costs no real time. */
function runSkippingWaits(session: Session, text: string, options: RunOptions = {}): Promise<OmniMessage[]> {
	const out: OmniMessage[] = [];
	return (async () => {
		for await (const m of session.run([userText(text)], options)) {
			out.push(m);
			if (m.type === "request_end" && m.retry_in_ms !== undefined) queueMicrotask(() => session.skipReconnectWait());
		}
		return out;
	})();
}

const wires: Wire[] = ["openai-compatible", "openai", "anthropic"];

describe.each(wires)("through %s over real HTTP", (wire) => {
	it("the engine completes a tool-using Task", async () => {
		const { session } = await agentOn(wire);
		server.enqueue(
			{
				text: ["Let me ", "check."],
				toolCalls: [{ id: "call_e2e_1", name: "echo", arguments: { text: "hi" }, chunks: 3 }],
				usage: { input: 40, output: 12 },
			},
			{ text: ["It says ", "echo: hi."], usage: { input: 60, output: 6 } },
		);
		const { result: out, requests } = await newRequests(() => collect(session.run([userText("what does echo say?")])));
		expect(lastDone(out)).toMatchObject({ reason: "model_stop" });
		expect(ofType(out, "tool_call")[0]).toMatchObject({
			callId: "call_e2e_1",
			name: "echo",
			arguments: '{"text":"hi"}',
		});
		expect(ofType(out, "tool_call_output")[0]).toMatchObject({ status: "ok", output: "echo: hi" });
		expect(ofType(out, "assistant_text").map((m) => m.text)).toEqual(["Let me check.", "It says echo: hi."]);
		expect(ofType(out, "partial_text").length).toBeGreaterThanOrEqual(4);
		expect(ofType(out, "token_usage").map((u) => [u.request.input, u.request.output])).toEqual([
			[40, 12],
			[60, 6],
		]);
		expect(requests).toHaveLength(2);
		expect(requests.every((r) => r.unpairedToolCalls.length === 0)).toBe(true);
		// The second request carries the call and its result back in the provider's own shape.
		expect(requests[1]?.rawBody).toContain("call_e2e_1");
		expect(requests[1]?.rawBody).toContain("echo: hi");
		expect(requests[0]?.rawBody).toContain("You are terse.");
	});

	const transient: [string, Fault][] = [
		["a socket dropped mid-stream", { kind: "drop", afterEvents: 2 }],
		["a 500", { kind: "status", status: 500 }],
		["a 503", { kind: "status", status: 503 }],
		["a 429", { kind: "status", status: 429 }],
		["a malformed JSON chunk", { kind: "malformed", afterEvents: 1 }],
	];

	it("transient faults reconnect with retry_in_ms 250, 500, 1000, 2000, 4000, then the Task completes", async () => {
		const { session } = await agentOn(wire);
		server.enqueue(...transient.map(([, fault]): FakeReply => ({ text: "partial", fault })), { text: "recovered" });
		const out = await runSkippingWaits(session, "go");
		const ends = ofType(out, "request_end");
		expect(ends.map((e) => e.retry_in_ms)).toEqual([250, 500, 1000, 2000, 4000, undefined]);
		expect(ends.map((e) => e.status)).toEqual(["timeout", "timeout", "timeout", "timeout", "malformed", "ok"]);
		expect(lastDone(out)).toMatchObject({ reason: "model_stop" });
		expect(ofType(out, "assistant_text").at(-1)?.text).toBe("recovered");
	});

	it("past 5 reconnects the turn settles as failed and the Task ends with done{error}", async () => {
		const { session } = await agentOn(wire);
		server.enqueue(...Array.from({ length: 6 }, (): FakeReply => ({ fault: { kind: "status", status: 503 } })));
		const out = await runSkippingWaits(session, "go");
		expect(ofType(out, "request_end").map((e) => e.status)).toEqual([
			"timeout",
			"timeout",
			"timeout",
			"timeout",
			"timeout",
			"failed",
		]);
		expect(lastDone(out)).toMatchObject({ reason: "error", error: { kind: "timeout", status: 503 } });
	});

	it("a 401 is request_end{status:auth}, no retry, done{error}; fixing the key and resuming works", async () => {
		const env: NodeJS.ProcessEnv = { FAKE_KEY: "wrong-key" };
		const { agent, session } = await agentOn(wire, env);
		const keyOf = (headers: Record<string, unknown>) => String(headers["x-api-key"] ?? headers.authorization ?? "");
		const answer = (request: { headers: Record<string, unknown> }): FakeReply =>
			keyOf(request.headers).includes("good-key")
				? { text: "welcome back" }
				: { fault: { kind: "status", status: 401 } };
		server.enqueue(answer);
		const { result: failed, requests } = await newRequests(() => collect(session.run([userText("go")])));
		expect(requests).toHaveLength(1);
		expect(ofType(failed, "request_end")).toMatchObject([{ status: "auth", error: { kind: "auth", status: 401 } }]);
		expect(lastDone(failed)).toMatchObject({ reason: "error", error: { kind: "auth" } });
		session.close();
		env.FAKE_KEY = "good-key";
		server.enqueue(answer);
		const resumed = await agent.resumeSession(session.id);
		const out = await collect(resumed.run([userText("again")]));
		expect(lastDone(out)).toMatchObject({ reason: "model_stop" });
		expect(ofType(out, "assistant_text")[0]?.text).toBe("welcome back");
	});

	it("the thinking level reaches the provider in its own terms, on every attempt", async () => {
		const { session } = await agentOn(wire);
		server.enqueue({ fault: { kind: "status", status: 500 } }, { text: "thought about it" });
		const { requests } = await newRequests(() => runSkippingWaits(session, "think", { thinkingLevel: "high" }));
		expect(requests).toHaveLength(2);
		for (const request of requests) {
			const body = request.body as JsonObject;
			if (wire === "anthropic") expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 16_384 });
			else if (wire === "openai") expect(body.reasoning).toMatchObject({ effort: "high" });
			else expect(body.reasoning_effort).toBe("high");
		}
	});
});

describe("prompt caching (Anthropic)", () => {
	it("puts cache breakpoints on the stable prefix, so each request reuses the last one's cache, and reports cache tokens", async () => {
		const { session } = await agentOn("anthropic");
		server.enqueue(
			{
				toolCalls: [{ id: "toolu_1", name: "echo", arguments: { text: "a" } }],
				usage: { input: 1000, cacheWrite: 900 },
			},
			{ text: "done", usage: { input: 1100, cacheRead: 900, cacheWrite: 150 } },
		);
		const { result: out, requests } = await newRequests(() => collect(session.run([userText("go")])));
		const second = requests[1]?.body as { system: JsonObject[]; messages: { role: string; content: JsonObject[] }[] };
		expect(second.system.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
		const lastBlock = (i: number) => second.messages[i]?.content.at(-1);
		// The last message (this request's end) and the end of the previous request's prompt.
		expect(lastBlock(second.messages.length - 1)?.cache_control).toEqual({ type: "ephemeral" });
		const previousEnd = second.messages.findLastIndex((m) => m.role === "assistant") - 1;
		expect(lastBlock(previousEnd)?.cache_control).toEqual({ type: "ephemeral" });
		const marked = JSON.stringify(second).split('"cache_control"').length - 1;
		expect(marked).toBeLessThanOrEqual(4);
		expect(ofType(out, "token_usage").map((u) => [u.request.cacheRead, u.request.cacheWrite])).toEqual([
			[0, 900],
			[900, 150],
		]);
	});
});

describe.each(wires)("compaction through %s", (wire) => {
	it("the compaction request is byte for byte the previous request's prefix plus the prompt, toolset unchanged", async () => {
		const { session } = await agentOn(wire);
		server.enqueue(
			{ text: "Checking.", toolCalls: [{ id: "call_c1", name: "echo", arguments: { text: "one" } }] },
			{ text: "Checked twice.", toolCalls: [{ id: "call_c2", name: "echo", arguments: { text: "two" } }] },
			{ text: `It said one, then two. ${"More detail. ".repeat(20)}` },
			{ text: "[summary]Echoed one and two.[/summary]" },
		);
		await collect(session.run([userText("echo one, then two")]));
		const { requests } = await newRequests(() => collect(session.compact()));
		const previous = server.requests.at(-2)?.body as JsonObject;
		const compaction = requests[0]?.body as JsonObject;
		const listKey = wire === "openai" ? "input" : "messages";
		const before = previous[listKey] as JsonObject[];
		const after = compaction[listKey] as JsonObject[];
		// Every other field — system prompt, tools, model, options — serializes the same.
		const rest = (body: JsonObject) => JSON.stringify({ ...body, [listKey]: undefined });
		expect(rest(compaction)).toBe(rest(previous));
		// The previous request's messages, byte for byte, then what followed, then the prompt.
		expect(after.slice(0, before.length).map((m) => JSON.stringify(m))).toEqual(before.map((m) => JSON.stringify(m)));
		expect(JSON.stringify(after.at(-1))).toContain("Your context window is nearly full");
		expect(session.context).toHaveLength(1);
	});
});

import { describe, expect, it } from "vitest";
import { type FakeProviderServer, findUnpairedCalls } from "../../src/testing.js";
import { fakeProviderPerTest } from "./per-test.js";

let server: FakeProviderServer;
fakeProviderPerTest((started) => {
	server = started;
});

async function post(path: string, body: unknown): Promise<string[] | undefined> {
	server.enqueue({ text: "ok" });
	const response = await fetch(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });
	await response.text();
	return server.requests.at(-1)?.unpairedToolCalls;
}

const call = (id: string) => ({ id, type: "function", function: { name: "weather", arguments: "{}" } });

describe("unpaired tool calls: Chat Completions", () => {
	it("accepts calls answered by the tool messages right after them", async () => {
		const body = {
			messages: [
				{ role: "user", content: "hi" },
				{ role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
				{ role: "tool", tool_call_id: "b", content: "2" },
				{ role: "tool", tool_call_id: "a", content: "1" },
				{ role: "assistant", content: "done" },
			],
		};
		expect(await post("/v1/chat/completions", body)).toEqual([]);
		expect(server.requestsWithUnpairedCalls).toEqual([]);
	});

	it("flags a call with no result, an orphan result and a result after other messages", async () => {
		const body = {
			messages: [
				{ role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
				{ role: "tool", tool_call_id: "a", content: "1" },
				{ role: "tool", tool_call_id: "ghost", content: "?" },
				{ role: "user", content: "and?" },
				{ role: "tool", tool_call_id: "b", content: "late" },
			],
		};
		expect(await post("/chat/completions", body)).toEqual(["ghost", "b"]);
		expect(server.requestsWithUnpairedCalls).toHaveLength(1);
		expect(server.requestsWithUnpairedCalls[0]?.api).toBe("openai-chat");
	});

	it("flags a call answered twice", () => {
		const body = {
			messages: [
				{ role: "assistant", tool_calls: [call("a")] },
				{ role: "tool", tool_call_id: "a", content: "1" },
				{ role: "tool", tool_call_id: "a", content: "1 again" },
			],
		};
		expect(findUnpairedCalls("openai-chat", body)).toEqual(["a"]);
	});
});

describe("unpaired tool calls: Responses", () => {
	const fc = (callId: string) => ({ type: "function_call", call_id: callId, name: "weather", arguments: "{}" });
	const out = (callId: string) => ({ type: "function_call_output", call_id: callId, output: "sunny" });

	it("accepts function_call items with a function_call_output by call_id", async () => {
		const body = { input: [{ role: "user", content: "hi" }, fc("c1"), fc("c2"), out("c2"), out("c1")] };
		expect(await post("/v1/responses", body)).toEqual([]);
	});

	it("flags a call with no output and an output with no call before it", async () => {
		const body = { input: [out("early"), fc("early"), fc("c1"), { role: "user", content: "go on" }] };
		expect(await post("/v1/responses", body)).toEqual(["early", "c1"]);
		expect(server.requestsWithUnpairedCalls.map((request) => request.api)).toEqual(["openai-responses"]);
	});

	it("does not flag outputs whose call may live on the server", () => {
		expect(findUnpairedCalls("openai-responses", { previous_response_id: "resp_1", input: [out("c9")] })).toEqual([]);
		expect(
			findUnpairedCalls("openai-responses", { input: [{ type: "item_reference", id: "fc_1" }, out("c9")] }),
		).toEqual([]);
	});
});

describe("unpaired tool calls: Anthropic Messages", () => {
	const use = (id: string) => ({ type: "tool_use", id, name: "weather", input: {} });
	const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "sunny" });

	it("accepts tool_use blocks answered in the next user message", async () => {
		const body = {
			messages: [
				{ role: "user", content: "hi" },
				{ role: "assistant", content: [{ type: "text", text: "checking" }, use("t1"), use("t2")] },
				{ role: "user", content: [result("t2"), result("t1"), { type: "text", text: "and?" }] },
			],
		};
		expect(await post("/v1/messages", body)).toEqual([]);
	});

	it("flags a tool_use without a result next, and a result answering an older message", async () => {
		const body = {
			messages: [
				{ role: "user", content: "hi" },
				{ role: "assistant", content: [use("t1"), use("t2")] },
				{ role: "user", content: [result("t1")] },
				{ role: "assistant", content: "ok" },
				{ role: "user", content: [result("t2")] },
			],
		};
		expect(await post("/v1/messages", body)).toEqual(["t2"]);
		expect(server.requestsWithUnpairedCalls[0]?.unpairedToolCalls).toEqual(["t2"]);
	});

	it("refuses such a request as the providers do, with a 400 in the API's error shape, taking no queued reply", async () => {
		const body = {
			messages: [
				{ role: "user", content: "hi" },
				{ role: "assistant", content: [use("t1")] },
				{ role: "user", content: "and?" },
			],
		};
		server.enqueue({ text: "ok" });
		const response = await fetch(`${server.url}/v1/messages`, { method: "POST", body: JSON.stringify(body) });
		expect(response.status).toBe(400);
		const error = (await response.json()) as { type: string; error: { type: string; message: string } };
		expect(error.type).toBe("error");
		expect(error.error.message).toContain("breaks tool-call pairing (calls t1)");
		expect(server.pendingReplies).toBe(1);
	});

	it("flags a tool_use followed by an assistant message, and a result with no tool_use", () => {
		const body = {
			messages: [
				{ role: "assistant", content: [use("t1")] },
				{ role: "assistant", content: "more" },
				{ role: "user", content: [result("nobody")] },
			],
		};
		expect(findUnpairedCalls("anthropic", body)).toEqual(["t1", "nobody"]);
	});
});

import { createGate, ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { ApiError, ConnectionError, type Frame, OmniloopClient, type OmniMessage } from "../src/index.js";
import { routes } from "../src/wire/index.js";
import { dropProxy, serve } from "./serve.js";

/** Reads `frames` until `stop` holds for one (included), leaving the stream open (a `for await` would close it). */
async function readUntil<T>(frames: AsyncGenerator<Frame<T>>, stop: (data: T) => boolean): Promise<Frame<T>[]> {
	const read: Frame<T>[] = [];
	for (let next = await frames.next(); next.done !== true; next = await frames.next()) {
		read.push(next.value);
		if (stop(next.value.data)) return read;
	}
	throw new Error(`the stream ended before the frame looked for (${read.length} read)`);
}

const isDone = (m: OmniMessage | { type: string }) => m.type === "done";

describe("@omniloop/client against a real server", () => {
	it("answers as the route table says, and an error answer is an ApiError with its code", async () => {
		const { client, root } = await serve(new ScriptedModel([]));
		const created = await client.call("POST /chat/sessions", { body: {} });
		expect(routes["POST /chat/sessions"].answers[201].json.parse(created)).toEqual(created);
		expect(created.workspaceDir).toBe(root);
		const { sessions } = await client.call("GET /chat/sessions");
		// The list answer is the union's strict first member: no search fields without `q`.
		expect(routes["GET /chat/sessions"].answers[200].json.parse({ sessions })).toEqual({ sessions });
		expect(sessions.map((s) => s.id)).toEqual([created.id]);
		const read = await client.call("GET /chat/sessions/:id", { params: { id: created.id }, query: { after: 0 } });
		expect(routes["GET /chat/sessions/:id"].answers[200].json.parse(read)).toEqual(read);
		expect(await client.call("GET /agents")).toMatchObject({ workspaceRoots: [root] });
		expect(
			await client.call("POST /chat/sessions/:id/steer", { params: { id: created.id }, body: { text: "x" } }),
		).toEqual({ accepted: false });
		expect(await client.call("DELETE /chat/sessions/:id/lock", { params: { id: created.id } })).toBeUndefined();

		const missing = await client
			.call("GET /chat/sessions/:id", { params: { id: "nope" }, query: { after: 0 } })
			.catch((e: unknown) => e);
		expect(missing).toBeInstanceOf(ApiError);
		expect(missing).toMatchObject({ status: 404, code: "not_found", route: "GET /chat/sessions/:id" });
		// Its message says it whole (which server, what was asked, the code); `reason` is the server's words.
		const { reason } = missing as ApiError;
		expect(reason).toContain("nope");
		expect((missing as ApiError).message).toBe(
			`the server at ${client.baseUrl} answered GET /chat/sessions/nope: not_found: ${reason}`,
		);
		const other = (await serve(new ScriptedModel([]))).server.origin;
		const refused = await new OmniloopClient({ baseUrl: other, token: "wrong" })
			.searchSessions("my secret words")
			.catch((e: unknown) => e);
		expect(refused).toMatchObject({ status: 401, code: "unauthorized", url: `${other}/chat/sessions` });
		// The query (a search's words, here) is not repeated in what may be logged.
		expect((refused as ApiError).message).toMatch(
			new RegExp(`^the server at ${other} answered GET /chat/sessions: unauthorized: `),
		);
		expect((refused as ApiError).message).not.toContain("secret");
		const bad = await client
			.call("POST /chat/sessions/:id/steer", { params: { id: created.id }, body: { text: "" } })
			.catch((e: unknown) => e);
		expect(bad).toMatchObject({ status: 400, code: "invalid_body" });
		expect((bad as ApiError).message).toContain("text");
	});

	it("no server at the address is a ConnectionError naming it", async () => {
		const { server } = await serve(new ScriptedModel([]));
		const origin = server.origin;
		await server.close();
		const error = await new OmniloopClient({ baseUrl: origin, token: "t" })
			.call("GET /agents")
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ConnectionError);
		// The system's reason, not fetch's bare "fetch failed".
		expect((error as Error).message).toMatch(new RegExp(`^cannot reach the server at ${origin}: connect ECONNREFUSED`));
		// A password in the address is refused at once (fetch would refuse it later), and not repeated.
		const withUser = () => new OmniloopClient({ baseUrl: origin.replace("//", "//me:hunter2@"), token: "t" });
		expect(withUser).toThrow(`baseUrl ${origin}/: a user name or password in the URL is not sent`);
		expect(withUser).not.toThrow("hunter2");
	});

	it("searchSessions answers the search, its hits typed with where they matched", async () => {
		const { client } = await serve(new ScriptedModel([]));
		const { id } = await client.call("POST /chat/sessions", { body: {} });
		await client.call("PATCH /chat/sessions/:id", { params: { id }, body: { title: "Parser rewrite" } });
		const found = await client.searchSessions("parser");
		expect(found.sessions.map((hit) => [hit.id, hit.match])).toEqual([[id, { in: "title" }]]);
		expect(found).toMatchObject({ textsScanned: expect.any(Number), scanLimit: expect.any(Number) });
		expect((await client.searchSessions("nothing like it")).sessions).toEqual([]);
	});

	it("streams a Task's messages; a steer arrives marked as one, live and in the history", async () => {
		const gate = createGate();
		const model = new ScriptedModel([
			[
				{ type: "gate", gate },
				{ type: "text", text: "one" },
			],
			[{ type: "text", text: "two" }],
		]);
		const { client } = await serve(model);
		const { id } = await client.call("POST /chat/sessions", { body: {} });
		const task = client.stream("POST /chat/sessions/:id/messages", { params: { id }, body: { text: "go" } });
		const first = task.next();
		await gate.reached;
		expect(
			await client.call("POST /chat/sessions/:id/steer", { params: { id }, body: { text: "also\n this " } }),
		).toEqual({
			accepted: true,
		});
		gate.release();
		const frames = [(await first).value as Frame<OmniMessage>, ...(await readUntil(task, isDone))];
		const users = frames.map((f) => f.data).filter((m) => m.type === "user_text");
		expect(users.map((m) => m.steer)).toEqual([undefined, "also\n this "]);
		expect(users[1]?.text).toBe("[user_steering]also\n this [/user_steering]");
		expect(frames.every((f) => f.id === String(f.data.seq))).toBe(true);

		const { messages } = await client.call("GET /chat/sessions/:id", { params: { id } });
		const history = messages.filter((m) => m.type === "user_text");
		expect(history.map((m) => m.steer)).toEqual([undefined, "also\n this "]);
	});

	it("a dropped event stream reconnects with Last-Event-ID: nothing lost, nothing twice", async () => {
		const model = new ScriptedModel([
			[{ type: "text", text: "first answer" }],
			[{ type: "text", text: "second answer" }],
		]);
		const { client, server } = await serve(model);
		const { id } = await client.call("POST /chat/sessions", { body: {} });
		const proxy = await dropProxy(Number(new URL(server.origin).port));
		const viaProxy = new OmniloopClient({ baseUrl: proxy.origin, token: server.token });
		const events = viaProxy.stream("GET /chat/sessions/:id/events", { params: { id }, query: { after: 0 } });
		const prefer = { prefer: "respond-async" };
		await client.call("POST /chat/sessions/:id/messages", { params: { id }, body: { text: "one" }, headers: prefer });
		const before = await readUntil(events, isDone);
		proxy.drop();
		await client.call("POST /chat/sessions/:id/messages", { params: { id }, body: { text: "two" }, headers: prefer });
		const after = await readUntil(events, isDone);
		await events.return(undefined);

		const seqs = [...before, ...after].map((f) => Number(f.id));
		expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
		const lastBefore = before.at(-1)?.id;
		expect(proxy.requests).toHaveLength(2);
		expect(proxy.requests[1]).toMatch(new RegExp(`\\r\\nlast-event-id: ${lastBefore}\\r\\n`, "i"));
		const { messages } = await client.call("GET /chat/sessions/:id", { params: { id } });
		const streamed = [...before, ...after].map((f) => f.data).filter((m) => !m.type.startsWith("partial_"));
		expect(streamed.map((m) => m.seq)).toEqual(messages.map((m) => m.seq));
		expect(after.map((f) => f.data).filter((m) => m.type === "assistant_text")).toMatchObject([
			{ text: "second answer" },
		]);
	});
});

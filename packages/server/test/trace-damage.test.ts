import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { sessionDir, traceFileName } from "@omniloop/core/internal";
import { ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { messagesOf, readFrames, startServer, tempDirs } from "./harness.js";

interface SessionAnswer {
	messages: OmniMessage[];
	traceDamage?: { file: string; line?: number; movedTo?: string; problem: string }[];
}

describe("a damaged line in the middle of a Session's Trace", () => {
	it("is left out of the history and named in the answer, the Session takes new messages, and the line is moved aside", async () => {
		const model = new ScriptedModel([[{ type: "text", text: "first" }], [{ type: "text", text: "second" }]]);
		const reported: string[] = [];
		// SQLite, on every run: with Postgres the history comes from the event log, not the files.
		const options = { model, report: (error: unknown) => reported.push(String(error)) };
		const dirs = tempDirs();
		const database = join(dirs.home, "omniloop.db");
		const first = await startServer({ ...options, database }, dirs);
		const id = await first.createSession();
		await readFrames(await first.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		const before = ((await (await first.api(`/chat/sessions/${id}`)).json()) as SessionAnswer).messages;
		await first.server.close();

		const path = join(sessionDir(first.home, id), traceFileName(1));
		const lines = readFileSync(path, "utf8").split("\n");
		const at = lines.findIndex((line) => line.includes('"type":"request_begin"'));
		const damagedSeq = (JSON.parse(lines[at] as string) as OmniMessage).seq;
		lines[at] = `${(lines[at] as string).slice(0, 20)}\u0000garbage`;
		writeFileSync(path, lines.join("\n"));

		const again = await startServer({ ...options, database }, dirs);
		const read = await again.api(`/chat/sessions/${id}`);
		expect(read.status).toBe(200);
		const answer = (await read.json()) as SessionAnswer;
		expect(answer.messages).toEqual(before.filter((m) => m.seq !== damagedSeq));
		expect(answer.traceDamage).toEqual([
			{ file: "trace.jsonl", line: at + 1, problem: expect.stringMatching(/^not valid JSON/) },
		]);
		expect(reported.join("\n")).toContain(`session ${id}: trace.jsonl line ${at + 1} is damaged`);

		const task = await again.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "more" } });
		expect(task.status).toBe(200);
		expect(messagesOf((await readFrames(task)).frames).at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
		expect(model.requests.at(-1)?.messages.map((m) => m.type)).toEqual(["user_text", "assistant_text", "user_text"]);

		const after = (await (await again.api(`/chat/sessions/${id}`)).json()) as SessionAnswer;
		expect(
			after.messages.filter((m) => m.type === "assistant_text").map((m) => m.type === "assistant_text" && m.text),
		).toEqual(["first", "second"]);
		expect(after.traceDamage).toEqual([
			{
				file: "trace.jsonl",
				movedTo: expect.stringMatching(/^trace\.jsonl\.damaged-\d+$/),
				problem: expect.any(String),
			},
		]);
	});
});

describe("a damaged header line of one Session's Trace", () => {
	it("leaves the other Sessions listed and streamed; that Session's own routes say trace_damaged, naming the file", async () => {
		const model = new ScriptedModel([[{ type: "text", text: "one" }], [{ type: "text", text: "two" }]]);
		const options = { model, report: () => {} };
		const dirs = tempDirs();
		const database = join(dirs.home, "omniloop.db");
		const first = await startServer({ ...options, database }, dirs);
		const damaged = await first.createSession();
		const intact = await first.createSession();
		for (const id of [damaged, intact]) {
			await readFrames(await first.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		}
		await first.server.close();
		const path = join(sessionDir(first.home, damaged), traceFileName(1));
		const lines = readFileSync(path, "utf8").split("\n");
		lines[0] = `${(lines[0] as string).slice(0, 20)}\u0000garbage`;
		writeFileSync(path, lines.join("\n"));

		const again = await startServer({ ...options, database }, dirs);
		const list = await again.api("/chat/sessions");
		expect(list.status, await list.clone().text()).toBe(200);
		const ids = ((await list.json()) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
		expect(ids).toContain(intact);
		const events = await again.api(`/events?session=${intact}`);
		expect(events.status).toBe(200);
		await events.body?.cancel();
		const read = await again.api(`/chat/sessions/${damaged}`);
		expect(read.status).toBe(500);
		const body = (await read.json()) as { error: { code: string; message: string } };
		expect(body.error.code).toBe("trace_damaged");
		expect(body.error.message).toContain("trace.jsonl");
	});
});

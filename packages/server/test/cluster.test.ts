import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { sessionDir, traceFileName } from "@omniloop/core/internal";
import { describe, expect, it } from "vitest";
import { clusterProject, createSession } from "./cluster-processes.js";
import { eventually, isType, messagesOf, readFrames, sseReader } from "./harness.js";

const seqs = (messages: readonly OmniMessage[]) => messages.map((m) => m.seq);

describe("several servers on one Postgres", () => {
	it("a Session made on A is listed and served by B; a Task on A streams live to a viewer on B, every seq once, in order", async () => {
		const project = await clusterProject();
		const [a, b] = await Promise.all([project.serve(), project.serve()]);
		const id = await createSession(a);
		const listed = (await (await b.api("/chat/sessions")).json()) as { sessions: { id: string }[] };
		expect(listed.sessions.map((s) => s.id)).toEqual([id]);

		const viewer = sseReader(await b.api(`/chat/sessions/${id}/events?after=0`));
		const words = Array.from({ length: 60 }, (_, i) => `w${i} `);
		project.provider.enqueue({ text: words, chunkDelayMs: 3, usage: { input: 5, output: 60 } });
		const onA = messagesOf(
			(await readFrames(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }))).frames,
		);
		expect(onA.filter((m) => m.type === "partial_text").length).toBeGreaterThan(10);
		const onB = messagesOf(await viewer.until(isType("done")));
		await viewer.close();
		// Everything A streamed (its partials too), nothing twice, in seq order.
		expect(seqs(onB).slice(-onA.length)).toEqual(seqs(onA));
		expect(new Set(seqs(onB)).size).toBe(onB.length);

		const history = (await (await b.api(`/chat/sessions/${id}`)).json()) as { messages: OmniMessage[] };
		expect(history.messages.find((m) => m.type === "assistant_text")).toMatchObject({ text: words.join("") });
		// A second Task of the same Session, now on B: its seqs go on after A's.
		project.provider.enqueue({ text: "from b" });
		const onBTask = messagesOf(
			(await readFrames(await b.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "again" } })))
				.frames,
		);
		expect(onBTask.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
		expect((onBTask[0] as OmniMessage).seq).toBeGreaterThan((onA.at(-1) as OmniMessage).seq);
	});

	it("a process with no Trace files of the Session (another home) serves its history and replay from the database, and runs its next Task", async () => {
		const project = await clusterProject();
		const elsewhere = join(project.base, "home-b");
		mkdirSync(elsewhere);
		const [a, b] = await Promise.all([project.serve(), project.serve(elsewhere)]);
		const id = await createSession(a);
		project.provider.enqueue({ text: ["one ", "two"], chunkDelayMs: 2 });
		const onA = messagesOf(
			(await readFrames(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "hi" } }))).frames,
		);
		const fromA = (await (await a.api(`/chat/sessions/${id}`)).json()) as { messages: OmniMessage[] };
		const fromB = (await (await b.api(`/chat/sessions/${id}`)).json()) as { messages: OmniMessage[] };
		expect(fromB.messages).toEqual(fromA.messages);
		expect(fromB.messages.find((m) => m.type === "assistant_text")).toMatchObject({ text: "one two" });
		// Replay from a seq: every complete message after it (the finished Task's partials are gone).
		const from = (onA[1] as OmniMessage).seq;
		const replay = sseReader(
			await b.api(`/chat/sessions/${id}/events`, { headers: { "last-event-id": String(from) } }),
		);
		expect(messagesOf(await replay.until(isType("done")))).toEqual(fromA.messages.filter((m) => m.seq > from));
		await replay.close();

		// A Session made on A whose first Task runs on B (another home).
		const fresh = await createSession(a);
		project.provider.enqueue({ text: "first on b" });
		const firstOnB = messagesOf(
			(await readFrames(await b.api(`/chat/sessions/${fresh}/messages`, { method: "POST", json: { text: "x" } })))
				.frames,
		);
		expect(firstOnB.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });

		// B runs the Session's next Task from the Trace the database holds: A's turn is in its context.
		project.provider.enqueue({ text: "b here" });
		const onB = messagesOf(
			(await readFrames(await b.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "and b?" } })))
				.frames,
		);
		expect(onB.at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
		expect((onB[0] as OmniMessage).seq).toBeGreaterThan((onA.at(-1) as OmniMessage).seq);
		expect(project.provider.requests.at(-1)?.rawBody).toContain("one two");
		// And A again, after B: its copy of the Trace gets B's turn first.
		project.provider.enqueue({ text: "a again" });
		const againOnA = messagesOf(
			(await readFrames(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "a?" } }))).frames,
		);
		expect((againOnA[0] as OmniMessage).seq).toBeGreaterThan((onB.at(-1) as OmniMessage).seq);
		expect(project.provider.requests.at(-1)?.rawBody).toContain("b here");
		// A fetched only what B added beyond the bytes it shared, and its copy is B's plus its own Task.
		const traceIn = (home: string) => readFileSync(join(sessionDir(home, id), traceFileName(1)), "utf8");
		expect(traceIn(project.home).startsWith(traceIn(elsewhere))).toBe(true);
		expect(
			traceIn(project.home)
				.split("\n")
				.filter((line) => line.includes('"b here"')),
		).toHaveLength(1);
	});

	it("one Task per Session across processes: 409 session_busy from the other one, which lists the Session busy", async () => {
		const project = await clusterProject();
		const [a, b] = await Promise.all([project.serve(), project.serve()]);
		const id = await createSession(a);
		project.provider.enqueue({ text: ["slow"], fault: { kind: "stall", afterEvents: 2 } });
		const started = await a.api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			json: { text: "hold it" },
			headers: { prefer: "respond-async" },
		});
		expect(started.status).toBe(202);
		const busy = await b.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "me too" } });
		expect(busy.status).toBe(409);
		expect(((await busy.json()) as { error: { code: string } }).error.code).toBe("session_busy");
		const listed = (await (await b.api("/chat/sessions")).json()) as { sessions: { status: string }[] };
		expect(listed.sessions.map((s) => s.status)).toEqual(["busy"]);
		// A's request must hold the stalled reply before the abort, or B's would get it.
		await eventually(() => (project.provider.requests.length === 1 ? true : undefined));
		expect((await a.api(`/chat/sessions/${id}/abort`, { method: "POST" })).status).toBe(200);
		project.provider.enqueue({ text: "free now" });
		const after = await eventually(async () => {
			const response = await b.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "now" } });
			return response.status === 200 ? response : undefined;
		});
		expect(messagesOf((await readFrames(after)).frames).at(-1)).toMatchObject({ type: "done", reason: "model_stop" });
	});

	it("kill -9 of A during a Task: the Session is busy until A's lease runs out, then B runs it", async () => {
		const leaseMs = 1500;
		const project = await clusterProject({ leaseMs });
		const [a, b] = await Promise.all([project.serve(), project.serve()]);
		const id = await createSession(a);
		project.provider.enqueue({ text: ["never", " finished"], fault: { kind: "stall", afterEvents: 2 } });
		await a.api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			json: { text: "x" },
			headers: { prefer: "respond-async" },
		});
		await eventually(() => (project.provider.requests.length === 1 ? true : undefined));
		await a.kill();
		const killedAt = Date.now();
		expect((await b.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "y" } })).status).toBe(409);
		project.provider.enqueue({ text: "taken over" });
		const response = await eventually(async () => {
			const r = await b.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "y" } });
			return r.status === 200 ? r : undefined;
		}, 10_000);
		const freedAfter = Date.now() - killedAt;
		expect(freedAfter).toBeLessThan(leaseMs + 2000);
		const messages = messagesOf((await readFrames(response)).frames);
		expect(messages.find((m) => m.type === "assistant_text")).toMatchObject({ text: "taken over" });
	});
});

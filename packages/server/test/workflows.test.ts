import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WorkflowStatus, WorkflowView } from "@omniloop/client";
import type { OmniMessage } from "@omniloop/core";
import { promptTitle } from "@omniloop/core/internal";
import { describe, expect, it } from "vitest";
import { eventually, readFrames, startServer } from "./harness.js";
import { getWorkflow, linesOf, planInput, post, startWorkflow, until, workflowProject } from "./workflows-harness.js";

async function inProcess(extraYaml: string[] = []) {
	const project = await workflowProject(extraYaml);
	const served = await startServer(
		{ env: { FAKE_KEY: "k" } },
		{ home: project.home, root: project.root, base: project.base },
	);
	return { ...project, ...served };
}

const FINISHED: WorkflowStatus[] = ["completed", "failed", "cancelled"];

describe("workflows over HTTP", () => {
	it("a denied call gets its denial output, the model goes on, the workflow completes; the tool never ran", async () => {
		const { api, root, provider } = await inProcess();
		const id = await startWorkflow(api, { input: planInput(["echo no >> ran.txt"]) });
		const [pending] = (await until(api, id, ["waiting_approval"])).pendingApprovals;
		expect(
			await post(api, `/workflows/${id}/approve`, { correlationId: pending?.correlationId, decision: "deny" }),
		).toEqual({
			status: 200,
			body: { status: "ready" },
		});
		await post(api, `/workflows/${id}/resume`);
		const done = await until(api, id, FINISHED);
		expect(done).toMatchObject({ status: "completed", approvals: [{ decision: "deny", by: "user" }] });
		expect(linesOf(root, "ran.txt")).toEqual([]);
		expect(provider.requests.at(-1)?.rawBody).toContain("denied");
	});

	it("several calls of a turn: all pending at once in call order, ready only when all are decided, one resume carries them out in order", async () => {
		const { api, root } = await inProcess();
		const commands = ["echo a >> ran.txt", "echo b >> ran.txt", "echo c >> ran.txt"];
		const id = await startWorkflow(api, { input: planInput(commands) });
		const waiting = await until(api, id, ["waiting_approval"], (w) => w.pendingApprovals.length === 3);
		expect(waiting.pendingApprovals.map((p) => p.arguments)).toEqual(
			commands.map((command) => JSON.stringify({ command })),
		);
		const decisions = ["allow", "deny", "allow"] as const;
		for (const [index, pending] of waiting.pendingApprovals.entries()) {
			const resumedEarly = await post(api, `/workflows/${id}/resume`);
			expect(resumedEarly).toMatchObject({ status: 409, body: { error: { code: "invalid_state" } } });
			expect(resumedEarly.body).toMatchObject({
				error: { message: expect.stringContaining(`${3 - index} approval(s)`) },
			});
			const answer = await post(api, `/workflows/${id}/approve`, {
				correlationId: pending.correlationId,
				decision: decisions[index],
			});
			expect(answer.body).toEqual({ status: index < 2 ? "waiting_approval" : "ready" });
		}
		expect(linesOf(root, "ran.txt")).toEqual([]);
		expect((await post(api, `/workflows/${id}/resume`)).status).toBe(202);
		const done = await until(api, id, FINISHED);
		expect(done.status).toBe("completed");
		expect(done.approvals.map((a) => a.decision)).toEqual(["allow", "deny", "allow"]);
		expect(linesOf(root, "ran.txt").sort()).toEqual(["a", "c"]); // concurrent calls: either order
	});

	it("the list shows each workflow with its own approvals, exactly as its own view does", async () => {
		const { api } = await inProcess();
		const oneInput = planInput(["echo a >> one.txt"]);
		const one = await startWorkflow(api, { input: oneInput });
		const two = await startWorkflow(api, { input: planInput(["echo b >> two.txt", "echo c >> two.txt"]) });
		await until(api, one, ["waiting_approval"]);
		await until(api, two, ["waiting_approval"], (w) => w.pendingApprovals.length === 2);
		const listed = ((await (await api("/workflows")).json()) as { workflows: WorkflowView[] }).workflows;
		expect(listed.map((w) => w.id).sort()).toEqual([one, two].sort());
		for (const id of [one, two]) expect(listed.find((w) => w.id === id)).toEqual(await getWorkflow(api, id));
		// A workflow's Session is named by its first step's prompt, as a chat Session by its first message.
		const sessions = ((await (await api("/chat/sessions")).json()) as { sessions: { id: string; title: string }[] })
			.sessions;
		const oneSession = listed.find((w) => w.id === one)?.sessionId;
		expect(sessions.find((s) => s.id === oneSession)?.title).toBe(promptTitle(oneInput));
		expect(listed.find((w) => w.id === two)?.pendingApprovals.map((p) => p.arguments)).toEqual([
			JSON.stringify({ command: "echo b >> two.txt" }),
			JSON.stringify({ command: "echo c >> two.txt" }),
		]);
	});

	it("cancel aborts its Task (done user_abort) and is final; approve and resume then say invalid_state", async () => {
		const { api, root } = await inProcess();
		const id = await startWorkflow(api, { input: planInput(["echo x >> ran.txt"]) });
		const { sessionId, pendingApprovals } = await until(api, id, ["waiting_approval"]);
		expect(await post(api, `/workflows/${id}/cancel`)).toEqual({ status: 200, body: { status: "cancelled" } });
		const session = await eventually200(api, `/chat/sessions/${sessionId}`);
		expect(session.messages.at(-1)).toMatchObject({ type: "done", reason: "user_abort" });
		const view = await getWorkflow(api, id);
		expect(view).toMatchObject({ status: "cancelled", pendingApprovals: [] });
		const approve = await post(api, `/workflows/${id}/approve`, {
			correlationId: pendingApprovals[0]?.correlationId,
			decision: "allow",
		});
		expect(approve).toMatchObject({ status: 409, body: { error: { code: "invalid_state" } } });
		expect((await post(api, `/workflows/${id}/cancel`)).status).toBe(409);
		expect(linesOf(root, "ran.txt")).toEqual([]);
	});

	it("404s and 400s name the thing or the field", async () => {
		const { api } = await inProcess();
		expect(await post(api, "/workflows/nope/approve", { correlationId: "c", decision: "allow" })).toMatchObject({
			status: 404,
			body: { error: { code: "not_found", message: "workflow nope not found" } },
		});
		expect((await post(api, "/workflows/nope/resume")).status).toBe(404);
		expect((await post(api, "/workflows/nope/cancel")).status).toBe(404);
		expect((await api("/workflows/nope")).status).toBe(404);
		const id = await startWorkflow(api, { input: planInput(["echo y >> ran.txt"]) });
		await until(api, id, ["waiting_approval"]);
		expect(await post(api, `/workflows/${id}/approve`, { correlationId: "other", decision: "allow" })).toMatchObject({
			status: 404,
			body: { error: { message: `approval other of workflow ${id} not found` } },
		});
		expect(await post(api, `/workflows/${id}/approve`, { correlationId: "c", decision: "maybe" })).toMatchObject({
			status: 400,
			body: { error: { code: "invalid_body", message: expect.stringMatching(/^decision: /) } },
		});
		expect(await post(api, "/workflows", { input: "" })).toMatchObject({
			status: 400,
			body: { error: { message: expect.stringMatching(/^input: /) } },
		});
		expect(await post(api, "/workflows", { input: "x", agentId: "ghost" })).toMatchObject({ status: 404 });
		expect(await post(api, "/workflows", { workflow: "ghost", input: "x" })).toMatchObject({
			status: 404,
			body: { error: { message: expect.stringContaining("workflow ghost is not defined") } },
		});
		expect((await api("/workflows?status=sleeping")).status).toBe(400);
		const waiting = (await (await api("/workflows?status=waiting_approval")).json()) as { workflows: { id: string }[] };
		expect(waiting.workflows.map((w) => w.id)).toEqual([id]);
		expect(((await (await api("/workflows?status=completed")).json()) as { workflows: unknown[] }).workflows).toEqual(
			[],
		);
	});

	it("resume and cancel take no body: a field in one is refused naming it, and nothing is done", async () => {
		const { api } = await inProcess();
		const id = await startWorkflow(api, { input: planInput(["echo y >> ran.txt"]) });
		await until(api, id, ["waiting_approval"]);
		for (const action of ["resume", "cancel"]) {
			expect(await post(api, `/workflows/${id}/${action}`, { foo: 1 })).toMatchObject({
				status: 400,
				body: { error: { code: "invalid_body", message: expect.stringContaining("foo") } },
			});
		}
		expect((await getWorkflow(api, id)).status).toBe("waiting_approval");
	});

	it("a workflow's Session reads the AGENTS.md files from its workspace root down, as a chat Session does", async () => {
		const { api, root, provider } = await inProcess();
		mkdirSync(join(root, "app"));
		writeFileSync(join(root, "AGENTS.md"), "root rules\n");
		writeFileSync(join(root, "app", "AGENTS.md"), "app rules\n");
		const id = await startWorkflow(api, { input: "hello", workspaceDir: "app" });
		const { sessionId } = await until(api, id, FINISHED);
		const instructionsOf = async (session: string) =>
			((await (await api(`/chat/sessions/${session}`)).json()) as { session: { instructions: { path: string }[] } })
				.session.instructions;
		const chat = (await (await api("/chat/sessions", { method: "POST", json: { workspaceDir: "app" } })).json()) as {
			id: string;
		};
		expect((await instructionsOf(sessionId)).map((file) => file.path)).toEqual([
			join(root, "AGENTS.md"),
			join(root, "app", "AGENTS.md"),
		]);
		expect(await instructionsOf(sessionId)).toEqual(await instructionsOf(chat.id));
		expect(provider.requests.at(-1)?.rawBody).toContain("root rules");
	});

	it("the token guards every workflow route", async () => {
		const { server } = await inProcess();
		for (const [method, path] of [
			["GET", "/workflows"],
			["POST", "/workflows"],
			["GET", "/workflows/x"],
			["POST", "/workflows/x/approve"],
			["POST", "/workflows/x/resume"],
			["POST", "/workflows/x/cancel"],
		] as const) {
			expect((await fetch(`${server.origin}${path}`, { method })).status).toBe(401);
			const foreign = await fetch(`${server.origin}${path}`, {
				method,
				headers: { authorization: `Bearer ${server.token}`, origin: "http://evil.example" },
			});
			expect(foreign.status).toBe(403);
		}
	});

	it("a workflow's Session is an ordinary Session: its Task streams through /chat/sessions/:id/events", async () => {
		const { api } = await inProcess();
		const id = await startWorkflow(api, { input: planInput(["echo z >> ran.txt"]) });
		const { sessionId, pendingApprovals } = await until(api, id, ["waiting_approval"]);
		const events = await api(`/chat/sessions/${sessionId}/events?after=0`);
		const chat = async () =>
			(
				(await (await api(`/chat/sessions/${sessionId}`)).json()) as {
					pendingConfirmations: { correlationId: string }[];
				}
			).pendingConfirmations;
		expect((await chat()).map((c) => c.correlationId)).toEqual([pendingApprovals[0]?.correlationId]);
		await post(api, `/workflows/${id}/approve`, {
			correlationId: pendingApprovals[0]?.correlationId,
			decision: "allow",
		});
		expect(await chat()).toEqual([]);
		const viaChat = await post(api, `/chat/sessions/${sessionId}/ask-user-response`, {
			correlationId: pendingApprovals[0]?.correlationId,
			decision: "deny",
		});
		expect(viaChat).toMatchObject({
			status: 409,
			body: { error: { message: expect.stringContaining(`/workflows/${id}/approve`) } },
		});
		const message = await post(api, `/chat/sessions/${sessionId}/messages`, { text: "hi" });
		expect(message).toMatchObject({
			status: 409,
			body: { error: { message: expect.stringContaining(`runs workflow ${id}`) } },
		});
		expect((await post(api, `/chat/sessions/${sessionId}/compact`)).status).toBe(409);
		await post(api, `/workflows/${id}/resume`);
		const { frames } = await readFrames(events, (frame) => frame.data.includes('"type":"done"'));
		const messages = frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data) as OmniMessage);
		expect(messages.map((m) => m.type)).toEqual(
			expect.arrayContaining(["confirmation_required", "approval_decision", "tool_call_output", "done"]),
		);
		expect(messages.find((m) => m.type === "approval_decision")).toMatchObject({
			correlationId: pendingApprovals[0]?.correlationId,
			decision: "allow",
		});
	});

	it("a named workflow: steps in one Session, templates filled from the input and earlier answers, a gate pending like a call", async () => {
		const { api, provider } = await inProcess([
			"workflows:",
			"  notes:",
			"    steps:",
			'      - { agent: default_agent, prompt: "List the changes since {{input}}." }',
			'      - { approval: "Publish notes for these changes?" }',
			'      - { agent: default_agent, prompt: "Write release notes from: {{steps.0}}" }',
		]);
		const id = await startWorkflow(api, { workflow: "notes", input: "v1.2" });
		const gate = await until(api, id, ["waiting_approval"]);
		expect(gate).toMatchObject({ name: "notes", step: 1 });
		expect(gate.pendingApprovals).toMatchObject([
			{ name: "approval", arguments: JSON.stringify({ question: "Publish notes for these changes?", step: 1 }) },
		]);
		expect(provider.requests.at(-1)?.rawBody).toContain("List the changes since v1.2.");
		await post(api, `/workflows/${id}/approve`, {
			correlationId: gate.pendingApprovals[0]?.correlationId,
			decision: "allow",
		});
		await post(api, `/workflows/${id}/resume`);
		const done = await until(api, id, FINISHED);
		expect(done.status).toBe("completed");
		const last = provider.requests.at(-1)?.rawBody ?? "";
		expect(last).toContain("Write release notes from: answer to: List the changes since v1.2.");
		expect(done.result?.text).toMatch(/^answer to: Write release notes from: answer to: List the changes/);
		const sessions = (await (await api("/chat/sessions")).json()) as { sessions: { id: string }[] };
		expect(sessions.sessions.map((s) => s.id)).toEqual([done.sessionId]);
	});

	it("a named workflow's denied gate stops it there: cancelled, later steps never run", async () => {
		const { api, provider } = await inProcess([
			"workflows:",
			"  guarded:",
			"    steps:",
			'      - { approval: "Start at all?" }',
			'      - { agent: default_agent, prompt: "never sent" }',
		]);
		const id = await startWorkflow(api, { workflow: "guarded", input: "x" });
		const gate = await until(api, id, ["waiting_approval"]);
		await post(api, `/workflows/${id}/approve`, {
			correlationId: gate.pendingApprovals[0]?.correlationId,
			decision: "deny",
		});
		await post(api, `/workflows/${id}/resume`);
		const done = await until(api, id, FINISHED);
		expect(done).toMatchObject({ status: "cancelled", error: "denied at step 0: Start at all?" });
		expect(provider.requests).toEqual([]);
	});

	it("an agent's approvalTimeoutMs: an undecided call of a live Task becomes a deny by timeout, and the workflow goes on by itself", async () => {
		const { api, root } = await inProcess(["  patient: { model: main, approvalTimeoutMs: 400 }"]);
		const id = await startWorkflow(api, { agentId: "patient", input: planInput(["echo late >> ran.txt"]) });
		const [pending] = (await until(api, id, ["waiting_approval"])).pendingApprovals;
		expect(pending?.expiresAt).toBe((pending?.requestedAt ?? 0) + 400);
		const done = await until(api, id, FINISHED);
		expect(done).toMatchObject({ status: "completed", approvals: [{ decision: "deny", by: "timeout" }] });
		expect(linesOf(root, "ran.txt")).toEqual([]);
		// The engine records it as such too, and the model is told nobody answered (not "denied by user").
		const history = (await (await api(`/chat/sessions/${done.sessionId}`)).json()) as { messages: OmniMessage[] };
		const decision = history.messages.find((m) => m.type === "approval_decision");
		expect(decision).toMatchObject({ decision: "deny", by: "timeout", correlationId: pending?.correlationId });
		const output = history.messages.find((m) => m.type === "tool_call_output");
		expect(output).toMatchObject({ status: "denied", output: expect.stringContaining("no one answered") });
		const late = await post(api, `/workflows/${id}/approve`, {
			correlationId: pending?.correlationId,
			decision: "allow",
		});
		expect(late.status).toBe(409);
	});

	it("a deadline that passes after a person decided another call leaves the workflow ready for their resume: the call they allowed runs only then", async () => {
		const { api, root } = await inProcess(["  patient: { model: main, approvalTimeoutMs: 3000 }"]);
		const id = await startWorkflow(api, {
			agentId: "patient",
			input: planInput(["echo allowed >> ran.txt", "echo unanswered >> ran.txt"]),
		});
		const waiting = await until(api, id, ["waiting_approval"], (w) => w.pendingApprovals.length === 2);
		const [first] = waiting.pendingApprovals;
		expect(
			await post(api, `/workflows/${id}/approve`, { correlationId: first?.correlationId, decision: "allow" }),
		).toMatchObject({ status: 200 });
		const ready = await until(api, id, ["ready"]);
		expect(ready.approvals).toMatchObject([
			{ decision: "allow", by: "user" },
			{ decision: "deny", by: "timeout" },
		]);
		expect(linesOf(root, "ran.txt")).toEqual([]);
		await post(api, `/workflows/${id}/resume`);
		expect(await until(api, id, FINISHED)).toMatchObject({ status: "completed" });
		expect(linesOf(root, "ran.txt")).toEqual(["allowed"]);
	});

	it("a named workflow whose template names a later step is refused, naming the key", async () => {
		const { api } = await inProcess([
			"workflows:",
			"  ahead:",
			"    steps:",
			'      - { agent: default_agent, prompt: "Use {{steps.1}}" }',
			'      - { approval: "ok?" }',
		]);
		expect(await post(api, "/workflows", { workflow: "ahead", input: "x" })).toMatchObject({
			status: 409,
			body: { error: { code: "invalid_state", message: expect.stringContaining("workflows.ahead.steps.0.prompt") } },
		});
	});

	it("a bad workflows entry in omniloop.yaml is a config error naming the file and the key", async () => {
		const project = await workflowProject([
			"workflows:",
			"  bad:",
			"    steps:",
			'      - { agent: default_agent, prompt: "x", extra: 1 }',
		]);
		await expect(
			startServer({ env: { FAKE_KEY: "k" } }, { home: project.home, root: project.root, base: project.base }),
		).rejects.toThrow(/omniloop\.yaml.*workflows\.bad\.steps\.0/);
	});

	it("deleting a waiting workflow's Session aborts its Task: the workflow ends cancelled", async () => {
		const { api, root } = await inProcess();
		const id = await startWorkflow(api, { input: planInput(["echo gone >> ran.txt"]) });
		const { sessionId } = await until(api, id, ["waiting_approval"]);
		expect((await api(`/chat/sessions/${sessionId}`, { method: "DELETE" })).status).toBe(204);
		expect(await until(api, id, FINISHED)).toMatchObject({ status: "cancelled", error: "its Task was aborted" });
		expect(linesOf(root, "ran.txt")).toEqual([]);
	});
});

async function eventually200(api: (path: string) => Promise<Response>, path: string) {
	for (let i = 0; i < 200; i++) {
		const body = (await (await api(path)).json()) as { messages: OmniMessage[] };
		if (body.messages.at(-1)?.type === "done") return body;
		await new Promise((r) => setTimeout(r, 25));
	}
	throw new Error(`${path}: no done`);
}

describe("workflows across a graceful close()", () => {
	async function history(api: (path: string) => Promise<Response>, sessionId: string) {
		return ((await (await api(`/chat/sessions/${sessionId}`)).json()) as { messages: OmniMessage[] }).messages;
	}

	it("a waiting workflow stays waiting through close(): the same approvals pending, then resume continues the same Task and runs the call once", async () => {
		const first = await inProcess();
		// Closed the moment its Session waits on a person: before its messages are committed
		// anywhere but the Trace file, and maybe before its workflow records the question.
		const events = await first.api("/events");
		const parked = readFrames(events, (frame) => frame.data.includes('"status":"waiting_approval"'));
		const id = await startWorkflow(first.api, { input: planInput(["echo kept >> ran.txt"]) });
		await parked;
		await first.server.close();

		const second = await startServer(
			{ env: { FAKE_KEY: "k" } },
			{ home: first.home, root: first.root, base: first.base },
		);
		const after = await until(second.api, id, ["waiting_approval"]);
		const before = await history(second.api, after.sessionId);
		expect(before.map((m) => m.type)).not.toContain("abort");
		expect(before.map((m) => m.type)).not.toContain("done");
		// The same question as the Task asked before the shutdown, the only one pending.
		const asked = before.filter((m) => m.type === "confirmation_required");
		expect(asked).toHaveLength(1);
		expect(after.pendingApprovals).toMatchObject([
			{
				correlationId: (asked[0] as { correlationId: string }).correlationId,
				arguments: '{"command":"echo kept >> ran.txt"}',
			},
		]);
		await post(second.api, `/workflows/${id}/approve`, {
			correlationId: after.pendingApprovals[0]?.correlationId,
			decision: "allow",
		});
		await post(second.api, `/workflows/${id}/resume`);
		expect((await until(second.api, id, FINISHED)).status).toBe("completed");
		expect(linesOf(first.root, "ran.txt")).toEqual(["kept"]);
		const messages = await history(second.api, after.sessionId);
		expect(messages.filter((m) => m.type === "done").map((m) => (m as { reason: string }).reason)).toEqual([
			"model_stop",
		]);
		expect(JSON.stringify(messages)).not.toContain("task_restarted");
		expect(first.provider.requests.at(-1)?.rawBody).not.toContain("The server was restarted");
	});

	it("a running workflow's Task is left unfinished by close(): its tool is stopped, and the next server continues the same Task without running the call again", async () => {
		const first = await inProcess();
		// An odd duration: its process is found by its command line (the sandbox hides the shell's pid).
		const command = "echo slow >> ran.txt; sleep 29.7531";
		const id = await startWorkflow(first.api, { agentId: "auto", input: planInput([command]) });
		await eventually(() => (linesOf(first.root, "ran.txt").length === 1 ? true : undefined));
		const { sessionId } = await getWorkflow(first.api, id);
		expect(running("29.7531")).toBe(true);
		await first.server.close();
		// The shutdown stopped the call's process (it was not left running).
		await eventually(() => (running("29.7531") ? undefined : true));

		const second = await startServer(
			{ env: { FAKE_KEY: "k" } },
			{ home: first.home, root: first.root, base: first.base },
		);
		expect((await until(second.api, id, FINISHED)).status).toBe("completed");
		expect(linesOf(first.root, "ran.txt")).toEqual(["slow"]);
		const messages = await history(second.api, sessionId);
		expect(messages.map((m) => m.type)).not.toContain("abort");
		expect(messages.filter((m) => m.type === "done").map((m) => (m as { reason: string }).reason)).toEqual([
			"model_stop",
		]);
		expect(messages.filter((m) => m.type === "tool_call_output")).toMatchObject([{ status: "interrupted" }]);
		expect(JSON.stringify(messages)).not.toContain("task_restarted");
		expect(first.provider.requestsWithUnpairedCalls).toEqual([]);
	});
});

/** Whether a process whose command line holds `text` runs on this machine. */
function running(text: string): boolean {
	return readdirSync("/proc").some((pid) => {
		try {
			return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(text);
		} catch {
			return false;
		}
	});
}

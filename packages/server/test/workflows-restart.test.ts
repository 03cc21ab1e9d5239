import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually } from "./harness.js";
import {
	getWorkflow,
	linesOf,
	planInput,
	post,
	type Served,
	serve,
	startWorkflow,
	until,
	workflowProject,
} from "./workflows-harness.js";

describe("workflows outlive the server (kill -9 of a real `omniloop serve`)", () => {
	it("waiting_approval → kill -9 → restart → the same pending approval → approve → ready → resume → completed; the tool ran once", async () => {
		const { provider, home, root } = await workflowProject();
		const first = await serve(home, root);
		const id = await startWorkflow(first.api, { input: planInput(["echo ran >> ran.txt"]) });
		const waiting = await until(first.api, id, ["waiting_approval"]);
		expect(waiting.pendingApprovals).toMatchObject([{ name: "shell", arguments: '{"command":"echo ran >> ran.txt"}' }]);
		await first.kill();

		const second = await serve(home, root);
		const after = await getWorkflow(second.api, id);
		expect(after.status).toBe("waiting_approval");
		expect(after.pendingApprovals).toEqual(waiting.pendingApprovals);
		expect(linesOf(root, "ran.txt")).toEqual([]);

		const [pending] = after.pendingApprovals;
		const approved = await post(second.api, `/workflows/${id}/approve`, {
			correlationId: pending?.correlationId,
			decision: "allow",
		});
		expect(approved).toEqual({ status: 200, body: { status: "ready" } });
		expect((await getWorkflow(second.api, id)).pendingApprovals).toEqual([]);
		// Decided is not resumed: nothing runs until resume.
		expect(linesOf(root, "ran.txt")).toEqual([]);
		expect(await post(second.api, `/workflows/${id}/resume`)).toEqual({ status: 202, body: { status: "running" } });
		const done = await until(second.api, id, ["completed", "failed", "cancelled"]);
		expect(done.status).toBe("completed");
		expect(done.result?.text).toBe("finished after 1 outputs");
		expect(done.approvals).toMatchObject([{ correlationId: pending?.correlationId, decision: "allow", by: "user" }]);
		expect(linesOf(root, "ran.txt")).toEqual(["ran"]);
		expect(provider.requestsWithUnpairedCalls).toEqual([]);
		// A second resume or approve of a finished workflow is refused.
		expect((await post(second.api, `/workflows/${id}/resume`)).status).toBe(409);
		const late = await post(second.api, `/workflows/${id}/approve`, {
			correlationId: pending?.correlationId,
			decision: "deny",
		});
		expect(late).toMatchObject({ status: 409, body: { error: { code: "invalid_state" } } });
	});

	it("approved then killed before resume: after the restart it is ready with the recorded decision, and resume runs the call once", async () => {
		const { home, root } = await workflowProject();
		const first = await serve(home, root);
		const id = await startWorkflow(first.api, { input: planInput(["echo once >> ran.txt"]) });
		const [pending] = (await until(first.api, id, ["waiting_approval"])).pendingApprovals;
		await post(first.api, `/workflows/${id}/approve`, { correlationId: pending?.correlationId, decision: "allow" });
		await first.kill();

		const second = await serve(home, root);
		expect((await getWorkflow(second.api, id)).status).toBe("ready");
		const again = await post(second.api, `/workflows/${id}/approve`, {
			correlationId: pending?.correlationId,
			decision: "deny",
		});
		expect(again.status).toBe(409);
		expect(again.body).toMatchObject({
			error: { code: "already_answered", message: expect.stringContaining("allow") },
		});
		await post(second.api, `/workflows/${id}/resume`);
		expect((await until(second.api, id, ["completed", "failed"])).status).toBe("completed");
		expect(linesOf(root, "ran.txt")).toEqual(["once"]);
	});

	it("cancelled after a restart while it waits: its Task's end is recorded (abort, done user_abort) and its call never runs", async () => {
		const { home, root } = await workflowProject();
		const first = await serve(home, root);
		const id = await startWorkflow(first.api, { input: planInput(["echo ran >> ran.txt"]) });
		const { sessionId } = await until(first.api, id, ["waiting_approval"]);
		await first.kill();

		const second = await serve(home, root);
		expect(await post(second.api, `/workflows/${id}/cancel`)).toEqual({ status: 200, body: { status: "cancelled" } });
		const { messages } = (await (await second.api(`/chat/sessions/${sessionId}`)).json()) as {
			messages: { type: string; reason?: string }[];
		};
		expect(messages.slice(-2)).toMatchObject([{ type: "abort" }, { type: "done", reason: "user_abort" }]);
		expect(messages.some((m) => m.type === "tool_start")).toBe(false);
		expect(linesOf(root, "ran.txt")).toEqual([]);
		expect((await getWorkflow(second.api, id)).status).toBe("cancelled");
	});

	it("two calls pending through kill -9: both stay pending under their ids; after approve + resume each runs once and nothing is asked again", async () => {
		const { home, root } = await workflowProject();
		const first = await serve(home, root);
		const id = await startWorkflow(first.api, { input: planInput(["echo one >> ran.txt", "echo two >> ran.txt"]) });
		const waiting = await until(first.api, id, ["waiting_approval"], (w) => w.pendingApprovals.length === 2);
		await first.kill();

		const second = await serve(home, root);
		const after = await getWorkflow(second.api, id);
		expect(after.pendingApprovals).toEqual(waiting.pendingApprovals);
		for (const pending of after.pendingApprovals) {
			await post(second.api, `/workflows/${id}/approve`, { correlationId: pending.correlationId, decision: "allow" });
		}
		await post(second.api, `/workflows/${id}/resume`);
		const done = await until(second.api, id, ["completed", "failed", "cancelled", "waiting_approval"]);
		expect(done.status).toBe("completed");
		expect(done.approvals.map((a) => [a.correlationId, a.decision])).toEqual(
			waiting.pendingApprovals.map((p) => [p.correlationId, "allow"]),
		);
		expect(linesOf(root, "ran.txt").sort()).toEqual(["one", "two"]); // concurrent calls: either order
	});

	it("a workflow killed while its tool runs completes by itself after the restart; the call is not run again", async () => {
		const { provider, home, root } = await workflowProject();
		const first = await serve(home, root);
		const id = await startWorkflow(first.api, {
			agentId: "auto",
			input: planInput(["echo started >> ran.txt; sleep 30"]),
		});
		await eventually(() => (linesOf(root, "ran.txt").length === 1 ? true : undefined));
		expect((await getWorkflow(first.api, id)).status).toBe("running");
		await first.kill();

		const second = await serve(home, root);
		const done = await until(second.api, id, ["completed", "failed", "cancelled"]);
		expect(done.status).toBe("completed");
		expect(linesOf(root, "ran.txt")).toEqual(["started"]);
		// The model saw the call's interrupted output, in a validly paired request.
		const last = provider.requests.at(-1)?.rawBody ?? "";
		expect(last).toContain("interrupted");
		expect(provider.requestsWithUnpairedCalls).toEqual([]);
	});

	it("an approval's deadline survives a restart: undecided past it, it is a deny by timeout and the workflow goes on", {
		timeout: 60_000,
	}, async () => {
		const { home, root } = await workflowProject();
		const first = await serve(home, root);
		// The deadline has to outlast the work before the check that it is still pending: a kill -9
		// and a real server's start, which take seconds on a busy machine.
		const approvalTimeoutMs = 12_000;
		const id = await startWorkflow(first.api, { input: planInput(["echo never >> ran.txt"]), approvalTimeoutMs });
		const waiting = await until(first.api, id, ["waiting_approval"]);
		const [pending] = waiting.pendingApprovals;
		expect(pending?.expiresAt).toBe((pending?.requestedAt ?? 0) + approvalTimeoutMs);
		await first.kill();

		const second = await serve(home, root);
		const after = await getWorkflow(second.api, id);
		expect(after.pendingApprovals).toEqual(waiting.pendingApprovals);
		const done = await until(second.api, id, ["completed", "failed", "cancelled"], () => true, 45_000);
		expect(done.status).toBe("completed");
		expect(done.approvals).toMatchObject([{ correlationId: pending?.correlationId, decision: "deny", by: "timeout" }]);
		expect(Date.now()).toBeGreaterThanOrEqual(pending?.expiresAt ?? 0);
		expect(linesOf(root, "ran.txt")).toEqual([]);
		const late = await post(second.api, `/workflows/${id}/approve`, {
			correlationId: pending?.correlationId,
			decision: "allow",
		});
		expect(late.status).toBe(409);
	});
});

describe("a named workflow across kills", () => {
	it("its gate and its later step's call stay pending through kill -9; each resume goes on from there, the call runs once", async () => {
		const { provider, home, root } = await workflowProject([
			"workflows:",
			"  ship:",
			"    steps:",
			'      - { agent: default_agent, prompt: "Summarize {{input}}." }',
			'      - { approval: "Ship it?" }',
			`      - { agent: default_agent, prompt: 'Ship: {{steps.0}} ${planInput(["echo shipped >> ran.txt"]).replaceAll("'", "''")}' }`,
		]);
		const first = await serve(home, root);
		const id = await startWorkflow(first.api, { workflow: "ship", input: "v2" });
		const gate = await until(first.api, id, ["waiting_approval"]);
		expect(gate).toMatchObject({ step: 1, pendingApprovals: [{ name: "approval" }] });
		await first.kill();

		const second = await serve(home, root);
		expect(await getWorkflow(second.api, id)).toMatchObject({ step: 1, pendingApprovals: gate.pendingApprovals });
		await post(second.api, `/workflows/${id}/approve`, {
			correlationId: gate.pendingApprovals[0]?.correlationId,
			decision: "allow",
		});
		await post(second.api, `/workflows/${id}/resume`);
		const call = await until(second.api, id, ["waiting_approval"], (w) => w.step === 2);
		expect(call.pendingApprovals).toMatchObject([{ name: "shell" }]);
		await second.kill();

		const third = await serve(home, root);
		expect((await getWorkflow(third.api, id)).pendingApprovals).toEqual(call.pendingApprovals);
		await post(third.api, `/workflows/${id}/approve`, {
			correlationId: call.pendingApprovals[0]?.correlationId,
			decision: "allow",
		});
		await post(third.api, `/workflows/${id}/resume`);
		const done = await until(third.api, id, ["completed", "failed", "cancelled"]);
		expect(done.status).toBe("completed");
		expect(linesOf(root, "ran.txt")).toEqual(["shipped"]);
		expect(provider.requests.some((r) => r.rawBody.includes("Ship: answer to: Summarize v2."))).toBe(true);
		expect(provider.requestsWithUnpairedCalls).toEqual([]);
	}, 40_000);
});

/** Which 409 a chat message to a workflow's Session gets: the refusal names the workflow. */
const refusal = (code: string, id: string) => ({
	status: 409,
	body: { error: { code, message: expect.stringContaining(`runs workflow ${id}`) } },
});

describe("a waiting workflow's Session after kill -9: its chat view follows the store's decisions", () => {
	/** A workflow waiting on its one call, killed, and the next server on the same home (nothing runs there). */
	async function waitingAfterKill(command: string) {
		const { home, root } = await workflowProject();
		const first = await serve(home, root);
		const id = await startWorkflow(first.api, { input: planInput([command]) });
		const { sessionId, pendingApprovals } = await until(first.api, id, ["waiting_approval"]);
		await first.kill();
		const second = await serve(home, root);
		await until(second.api, id, ["waiting_approval"]);
		return { api: second.api, root, id, sessionId, correlationId: pendingApprovals[0]?.correlationId };
	}

	it("an approval decided after its Session was deleted still makes the workflow ready", async () => {
		const { api, id, sessionId, correlationId } = await waitingAfterKill("echo x >> ran.txt");
		expect((await api(`/chat/sessions/${sessionId}`, { method: "DELETE" })).status).toBe(204);
		// The chat view is gone; the decision is the store's, and the status follows it.
		expect(await post(api, `/workflows/${id}/approve`, { correlationId, decision: "allow" })).toEqual({
			status: 200,
			body: { status: "ready" },
		});
		expect(await getWorkflow(api, id)).toMatchObject({ status: "ready", pendingApprovals: [] });
	});

	it("chat is invalid_state while nothing runs; once resumed, the decided call runs as no pending confirmation, the Session busy", async () => {
		const command = "echo started >> ran.txt; while [ ! -f go ]; do sleep 0.05; done";
		const { api, root, id, sessionId, correlationId } = await waitingAfterKill(command);
		// Nothing runs: only the workflow's state refuses a chat Task.
		expect(await post(api, `/chat/sessions/${sessionId}/messages`, { text: "hi" })).toMatchObject(
			refusal("invalid_state", id),
		);
		expect(await post(api, `/chat/sessions/${sessionId}/compact`)).toMatchObject(refusal("invalid_state", id));
		expect(await post(api, `/workflows/${id}/approve`, { correlationId, decision: "allow" })).toEqual({
			status: 200,
			body: { status: "ready" },
		});
		expect(await post(api, `/workflows/${id}/resume`)).toEqual({ status: 202, body: { status: "running" } });
		// The continued Task announced the call again and runs it: nobody is asked anything.
		await eventually(() => (linesOf(root, "ran.txt").includes("started") ? true : undefined));
		const read = (await (await api(`/chat/sessions/${sessionId}`)).json()) as {
			session: { status: string };
			pendingConfirmations: unknown[];
		};
		expect(read).toMatchObject({ session: { status: "busy" }, pendingConfirmations: [] });
		expect(await post(api, `/chat/sessions/${sessionId}/messages`, { text: "hi" })).toMatchObject(
			refusal("session_busy", id),
		);
		writeFileSync(join(root, "go"), "");
		expect((await until(api, id, ["completed", "failed", "cancelled"])).status).toBe("completed");
	});
});

describe("workflows across a graceful restart (SIGTERM)", () => {
	it("a waiting workflow is left waiting (not aborted): the same approval is pending after the restart, and resume runs the call once", async () => {
		const { home, root } = await workflowProject();
		const first = await serve(home, root);
		const id = await startWorkflow(first.api, { input: planInput(["echo term >> ran.txt"]) });
		const waiting = await until(first.api, id, ["waiting_approval"]);
		first.child.kill("SIGTERM");
		expect(await exitCode(first)).toBe(0);

		const second = await serve(home, root);
		const after = await getWorkflow(second.api, id);
		expect(after).toMatchObject({ status: "waiting_approval", pendingApprovals: waiting.pendingApprovals });
		await post(second.api, `/workflows/${id}/approve`, {
			correlationId: after.pendingApprovals[0]?.correlationId,
			decision: "allow",
		});
		await post(second.api, `/workflows/${id}/resume`);
		expect((await until(second.api, id, ["completed", "failed", "cancelled"])).status).toBe("completed");
		expect(linesOf(root, "ran.txt")).toEqual(["term"]);
	});

	it("a running workflow's Task is left unfinished by the shutdown: the restart continues the same Task by itself (its call is not run again)", async () => {
		const { provider, home, root } = await workflowProject();
		const first = await serve(home, root);
		const id = await startWorkflow(first.api, {
			agentId: "auto",
			input: planInput(["echo slow >> ran.txt; sleep 30"]),
		});
		await eventually(() => (linesOf(root, "ran.txt").length === 1 ? true : undefined));
		first.child.kill("SIGTERM");
		expect(await exitCode(first)).toBe(0);

		const second = await serve(home, root);
		const done = await until(second.api, id, ["completed", "failed", "cancelled"]);
		expect(done.status).toBe("completed");
		expect(linesOf(root, "ran.txt")).toEqual(["slow"]);
		// Continued, as after a crash: the call's output says it was interrupted; no restart note.
		const last = provider.requests.at(-1)?.rawBody ?? "";
		expect(last).toContain("interrupted");
		expect(last).not.toContain("The server was restarted while this task ran");
		expect(provider.requestsWithUnpairedCalls).toEqual([]);
	});
});

function exitCode(served: Served): Promise<number | null> {
	return new Promise((resolve) => {
		if (served.child.exitCode !== null || served.child.signalCode !== null) resolve(served.child.exitCode);
		else served.child.once("exit", (code) => resolve(code));
	});
}

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually, startServer } from "./harness.js";
import { linesOf, planInput, post, startWorkflow, until, workflowProject } from "./workflows-harness.js";

const refusal = (code: string, id: string) => ({
	status: 409,
	body: { error: { code, message: expect.stringContaining(`runs workflow ${id}`) } },
});

/**
 * A chat Task on a workflow's Session is refused (workflow-runner.ts, refuseChat); a person's own
 * Sessions take messages. While the workflow's Task holds the Session (it runs, or waits on a
 * person in memory) the refusal is `session_busy`, as on any Session with a Task (DESIGN §9). The
 * Session as the next server finds it in the store, with nothing running (`invalid_state`), is
 * covered across a kill -9 in workflows-restart.test.ts.
 */
describe("chat on a workflow's Session", () => {
	it("is session_busy while the workflow's Task waits on a person; a person's own Session takes messages", async () => {
		const { home, root, base } = await workflowProject();
		const { api, createSession } = await startServer({ env: { FAKE_KEY: "k" } }, { home, root, base });
		const id = await startWorkflow(api, { input: planInput(["echo z >> ran.txt"]) });
		const { sessionId } = await until(api, id, ["waiting_approval"]);
		const busy = refusal("session_busy", id);
		expect(await post(api, `/chat/sessions/${sessionId}/messages`, { text: "hi" })).toMatchObject(busy);
		expect(await post(api, `/chat/sessions/${sessionId}/compact`)).toMatchObject(busy);
		const mine = await createSession();
		const started = await api(`/chat/sessions/${mine}/messages`, {
			method: "POST",
			headers: { prefer: "respond-async" },
			json: { text: "hi" },
		});
		expect(started.status).toBe(202);
	});

	it("is session_busy while the workflow's Task runs, and taken once the workflow has ended", async () => {
		const { home, root, base } = await workflowProject();
		const { api } = await startServer({ env: { FAKE_KEY: "k" } }, { home, root, base });
		// `auto` runs the shell without asking: the command holds the Task until the test lets it go.
		const command = "echo started >> ran.txt; while [ ! -f go ]; do sleep 0.05; done";
		const id = await startWorkflow(api, { agentId: "auto", input: planInput([command]) });
		const { sessionId } = await until(api, id, ["running"]);
		await eventually(() => (linesOf(root, "ran.txt").includes("started") ? true : undefined));
		const busy = refusal("session_busy", id);
		expect(await post(api, `/chat/sessions/${sessionId}/messages`, { text: "hi" })).toMatchObject(busy);
		expect(await post(api, `/chat/sessions/${sessionId}/compact`)).toMatchObject(busy);
		writeFileSync(join(root, "go"), "");
		expect((await until(api, id, ["completed", "failed", "cancelled"])).status).toBe("completed");
		const after = await api(`/chat/sessions/${sessionId}/messages`, {
			method: "POST",
			headers: { prefer: "respond-async" },
			json: { text: "hi" },
		});
		expect(after.status).toBe(202);
	});
});

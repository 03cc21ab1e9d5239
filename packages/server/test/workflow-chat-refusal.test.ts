import { describe, expect, it } from "vitest";
import { startServer } from "./harness.js";
import { planInput, post, startWorkflow, until, workflowProject } from "./workflows-harness.js";

/**
 * A chat Task on a workflow's Session is refused (workflow-runner.ts, refuseChat). The server asks
 * the store only about Sessions it did not make for a person, so this covers both ends: the
 * Session a workflow's start made here, and the same Session as the next server finds it in the
 * store. A person's own Sessions take messages.
 */
describe("chat on a workflow's Session", () => {
	it("is refused by the server that started the workflow and by the next one on the same home", async () => {
		const project = await workflowProject();
		const dirs = { home: project.home, root: project.root, base: project.base };
		const first = await startServer({ env: { FAKE_KEY: "k" } }, dirs);
		const id = await startWorkflow(first.api, { input: planInput(["echo z >> ran.txt"]) });
		const { sessionId } = await until(first.api, id, ["waiting_approval"]);
		const refused = {
			status: 409,
			body: { error: { code: "invalid_state", message: expect.stringContaining(`runs workflow ${id}`) } },
		};
		expect(await post(first.api, `/chat/sessions/${sessionId}/messages`, { text: "hi" })).toMatchObject(refused);
		const mine = await first.createSession();
		const started = await first.api(`/chat/sessions/${mine}/messages`, {
			method: "POST",
			headers: { prefer: "respond-async" },
			json: { text: "hi" },
		});
		expect(started.status).toBe(202);
		await first.server.close();

		const second = await startServer({ env: { FAKE_KEY: "k" } }, dirs);
		await until(second.api, id, ["waiting_approval"]);
		expect(await post(second.api, `/chat/sessions/${sessionId}/messages`, { text: "hi" })).toMatchObject(refused);
		expect((await post(second.api, `/chat/sessions/${sessionId}/compact`)).status).toBe(409);
	});
});

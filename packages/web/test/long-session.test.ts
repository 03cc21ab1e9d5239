import { createAgent, userText } from "@omniloop/core";
import { ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { startApp, tempDirs } from "./harness.js";

const TASKS = 1000;

/** A Session of 2,000 chat messages (1,000 questions and answers), made in-process on a home. */
async function longSession(home: string, root: string): Promise<string> {
	const model = new ScriptedModel([], { whenExhausted: { text: "An answer.\n\nWith a second paragraph." } });
	const agent = await createAgent({ agentId: "default_agent", configDir: root, home, env: {}, model });
	const session = await agent.createSession({ workspaceDir: root });
	for (let i = 1; i <= TASKS; i++) {
		for await (const _ of session.run([userText(`Question ${i}`)])) {
			// Drained: the Trace is what the server reads.
		}
	}
	await session.close();
	return session.id;
}

describe("a long Session", { timeout: 120_000 }, () => {
	it("2,000 messages open at the end, virtualized, and scroll to the first", async () => {
		const dirs = tempDirs();
		const id = await longSession(dirs.home, dirs.root);
		const app = await startApp({ home: dirs.home, root: dirs.root });
		const page = await app.open(`#/s/${id}`);
		await page.locator(".msg.user").getByText(`Question ${TASKS}`, { exact: true }).waitFor();
		// Only what is on screen is in the DOM.
		const rows = await page.locator(".transcript .row").count();
		expect(rows).toBeGreaterThan(3);
		expect(rows).toBeLessThan(100);
		const list = page.locator(".transcript");
		await page.locator(".chat-meta .badge", { hasText: "idle" }).waitFor();
		// Scrolled up by the wheel, as a person does, until the first question shows.
		await list.hover();
		for (let i = 0; i < 40 && (await list.evaluate((el) => el.scrollTop)) > 0; i++) await page.mouse.wheel(0, -20_000);
		await page.locator(".msg.user").getByText("Question 1", { exact: true }).waitFor();
		await list.evaluate((el) => el.scrollTo(0, el.scrollHeight / 2));
		// The virtualized list renders the rows of the new position at its next frame: polled.
		const firstShown = async () =>
			Number(((await page.locator(".msg.user").first().textContent()) ?? "").replace("Question ", ""));
		await expect.poll(firstShown).toBeGreaterThan(TASKS * 0.3);
		expect(await firstShown()).toBeLessThan(TASKS * 0.7);
	});
});

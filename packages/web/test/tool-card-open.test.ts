import { createAgent, userText } from "@omniloop/core";
import { callTool, ScriptedModel, say } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { startApp, tempDirs } from "./harness.js";

/** A Session whose first Task lists the folder (a tool card), then `questions` questions and answers. */
async function sessionWithCardFirst(home: string, root: string, questions: number): Promise<string> {
	const model = new ScriptedModel([[callTool("list_dir", {}, "c1")], [say("Listed it.")]], {
		whenExhausted: { text: "An answer.\n\nWith a second paragraph." },
	});
	const agent = await createAgent({ agentId: "default_agent", configDir: root, home, env: {}, model });
	const session = await agent.createSession({ workspaceDir: root });
	for (let i = 0; i <= questions; i++) {
		for await (const _ of session.run([userText(i === 0 ? "List the folder" : `Question ${i}`)])) {
			// Drained: the Trace is what the server reads.
		}
	}
	await session.close();
	return session.id;
}

describe("a tool card the person opened", { timeout: 60_000 }, () => {
	it("stays open when it is scrolled out of view and back (the list is virtualized)", async () => {
		const dirs = tempDirs();
		const id = await sessionWithCardFirst(dirs.home, dirs.root, 60);
		const app = await startApp({ home: dirs.home, root: dirs.root });
		const page = await app.open(`#/s/${id}`);
		const list = page.locator(".transcript");
		await page.locator(".msg.user").getByText("Question 60", { exact: true }).waitFor();
		const toTop = async () => {
			await list.hover();
			for (let i = 0; i < 40 && (await list.evaluate((el) => el.scrollTop)) > 0; i++)
				await page.mouse.wheel(0, -20_000);
		};
		await toTop();
		const card = page.getByRole("article", { name: /^Tool list_dir/ });
		const details = card.locator("details").first();
		await details.waitFor();
		expect(await details.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
		await card.locator("summary").first().click();
		await expect.poll(() => details.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(true);
		// Far enough down that the card's row is unmounted, then back.
		await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
		await card.waitFor({ state: "detached" });
		await toTop();
		await card.waitFor();
		expect(await details.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(true);
	});
});

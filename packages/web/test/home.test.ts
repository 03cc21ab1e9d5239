import { describe, expect, it } from "vitest";
import { startApp, waitIdle } from "./harness.js";

describe("the first screen", { timeout: 60_000 }, () => {
	it("is a composer: type and send, and a Session starts with that message; agent and folder show their defaults", async () => {
		const app = await startApp({ agents: ["helper: { model: main, description: a helper }"] });
		const page = await app.open();
		const form = page.getByRole("form", { name: "New Session" });
		const box = form.getByRole("textbox", { name: "Message" });
		// Nothing comes before typing: the box has the focus.
		await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
		expect(await form.getByLabel("Folder").inputValue()).toBe(app.root);
		expect(await form.getByLabel("Agent").locator("option:checked").textContent()).toContain(
			"default_agent — main (openai-compatible:fake-model) (the default)",
		);
		await form.getByLabel("Agent").selectOption("helper");
		app.reply({ text: "Hello from the helper." });
		await box.fill("hello there");
		await box.press("Enter");
		await page.waitForURL(/#\/s\//);
		await page.getByText("Hello from the helper.").waitFor();
		await waitIdle(page);
		expect(await page.getByRole("article", { name: "You" }).textContent()).toBe("hello there");
		const id = decodeURIComponent(page.url().split("#/s/")[1] ?? "");
		const session = (await (await app.api(`/chat/sessions/${id}?limit=0`)).json()) as {
			session: { agentId: string; workspaceDir: string };
		};
		expect(session.session).toMatchObject({ agentId: "helper", workspaceDir: app.root });
	});
});

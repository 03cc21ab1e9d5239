/// <reference lib="dom" />
// (Some callbacks below run in the browser.)
import { describe, expect, it } from "vitest";
import { newSession, send, startApp, waitIdle } from "./harness.js";

describe("the transcript's small things", { timeout: 60_000 }, () => {
	it("a folded tool card names the path or command it worked on, and says it opens", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		app.reply({ toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }, { text: "Read it." });
		await send(page, "read the notes");
		await page.getByText("Read it.").waitFor();
		const card = page.getByRole("article", { name: "Tool read_file: ok" });
		const summary = card.locator("summary");
		expect(await summary.locator(".tool-target").textContent()).toBe("notes.txt");
		expect(await summary.getAttribute("title")).toContain("Show or hide");
		const toggle = () => summary.locator(".tool-toggle").evaluate((el) => getComputedStyle(el, "::before").content);
		expect(await toggle()).toBe('"▸"');
		expect(await card.locator("pre.output").isVisible()).toBe(false);
		await summary.click();
		expect(await card.locator("pre.output").textContent()).toContain("two");
		expect(await toggle()).toBe('"▾"');
	});

	it("copy buttons: a message's whole text, and a code block's code", async () => {
		const app = await startApp();
		await app.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(app.url).origin });
		const page = await app.open();
		await newSession(page);
		const answer = "Here it is:\n\n```ts\nconst answer = 42;\n```";
		app.reply({ text: answer });
		await send(page, "the answer, please");
		await page.locator(".msg.assistant").getByText("Here it is:").waitFor();
		await waitIdle(page);
		const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
		await page.getByRole("button", { name: "Copy the answer" }).click();
		await expect.poll(clipboard).toBe(answer);
		await page.getByRole("button", { name: "Copy your message" }).click();
		await expect.poll(clipboard).toBe("the answer, please");
		await page.locator('[data-streamdown="code-block"]').getByRole("button", { name: /copy/i }).click();
		await expect.poll(async () => (await clipboard()).trimEnd()).toBe("const answer = 42;");
	});
});

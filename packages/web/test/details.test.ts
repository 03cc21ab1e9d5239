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

	it("a reload shows no flash of Untitled Session or No messages yet", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		app.reply({ text: "An answer to keep." });
		await send(page, "a question to keep");
		await page.getByText("An answer to keep.").waitFor();
		await waitIdle(page);
		// From the first node the page makes: every text it ever shows is recorded.
		await page.addInitScript(() => {
			const seen: string[] = [];
			(window as unknown as { seen: string[] }).seen = seen;
			new MutationObserver(() => {
				const text = document.body?.textContent ?? "";
				for (const flash of ["Untitled Session", "No messages yet"]) if (text.includes(flash)) seen.push(flash);
			}).observe(document, { childList: true, subtree: true, characterData: true });
		});
		await page.reload();
		await page.getByText("An answer to keep.").waitFor();
		expect(await page.evaluate(() => (window as unknown as { seen: string[] }).seen)).toEqual([]);
		expect(await page.locator(".chat-title h1").textContent()).toBe("a question to keep");
	});

	it("a Session with no messages says so", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		await page.getByText("No messages yet", { exact: false }).waitFor();
	});
});

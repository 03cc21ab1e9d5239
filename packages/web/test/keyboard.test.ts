/// <reference lib="dom" />
// (Some callbacks below run in the browser.)
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { newSession, send, startApp, waitIdle } from "./harness.js";

/** The focused element's accessible name as these tests read it: its aria-label, else its text. */
const focused = (page: Page) =>
	page.evaluate(() => {
		const active = document.activeElement;
		if (active === null || active === document.body) return "<body>";
		return active.getAttribute("aria-label") ?? active.textContent?.trim() ?? active.tagName;
	});

describe("the keyboard follows each action, never left on <body>", { timeout: 60_000 }, () => {
	it("a Session started from the home screen: the composer has the keys", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		await expect.poll(() => focused(page)).toBe("Message");
	});

	it("Delete… asks with the focus on Keep it; Esc keeps it and gives the focus back to Delete…", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		await page.getByRole("button", { name: "Delete…" }).click();
		const ask = page.getByRole("group", { name: "Delete this Session?" });
		await expect.poll(() => focused(page)).toBe("Keep it");
		await page.keyboard.press("Escape");
		await ask.waitFor({ state: "detached" });
		await expect.poll(() => focused(page)).toBe("Delete…");
	});

	it("a rename saved with Enter gives the focus back to the Session's link", async () => {
		const app = await startApp();
		const page = await app.open();
		const id = await newSession(page);
		app.reply({ text: "ok" });
		await send(page, "alpha question");
		await waitIdle(page);
		await page.getByRole("button", { name: "Rename alpha question" }).click();
		const field = page.getByRole("textbox", { name: "New title" });
		await field.fill("Trip to Lisbon");
		await field.press("Enter");
		await expect
			.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-session-id") ?? "<none>"))
			.toBe(id);
	});

	it("Rewind to here opens its choice with the focus in it; Esc closes it and gives the focus back", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		app.reply({ text: "ok" });
		await send(page, "first question");
		await waitIdle(page);
		const rewind = page.getByRole("button", { name: "Rewind to here" }).first();
		// Its description says which message it is about (a screen reader hears one such button a message).
		const describedBy = (await rewind.getAttribute("aria-describedby")) ?? "";
		expect(await page.evaluate((id) => document.getElementById(id)?.textContent, describedBy)).toBe(
			"Your message: first question",
		);
		await rewind.click();
		await expect.poll(() => focused(page)).toBe("Rewind to before this message");
		await page.keyboard.press("Escape");
		await page.getByRole("group", { name: "Rewind to before this message" }).waitFor({ state: "detached" });
		await expect.poll(() => focused(page)).toBe("Rewind to here");
	});

	it("the thinking level chosen stays while an approval card takes the composer's place", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		const level = page.getByRole("combobox", { name: "Thinking level" });
		await level.selectOption("high");
		app.reply({ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "x" } }] }, { text: "done" });
		await send(page, "write a");
		const card = page.getByRole("region", { name: /Allow write_file/ });
		await card.getByRole("button", { name: /Allow once/ }).click();
		await card.waitFor({ state: "detached" });
		await waitIdle(page);
		expect(await level.inputValue()).toBe("high");
	});
});

describe("a send that found no server", { timeout: 60_000 }, () => {
	it("says so, keeps the text, and the error goes once the server is back", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		app.proxy.refuse(true);
		await send(page, "are you there?");
		const alert = page.locator(".composer").getByRole("alert");
		await alert.waitFor();
		expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("are you there?");
		app.proxy.refuse(false);
		await alert.waitFor({ state: "detached", timeout: 30_000 });
	});
});

/// <reference lib="dom" />
// (Some callbacks below run in the browser.)
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { newSession, send, startApp, waitIdle } from "./harness.js";

const PHONE = { width: 390, height: 844 };

/** Elements (by class) whose box runs past the window's right edge, and the page's own overflow. */
function overflowing(page: Page): Promise<string[]> {
	return page.evaluate(() => {
		const width = document.documentElement.clientWidth;
		const out: string[] = [];
		if (document.documentElement.scrollWidth > width) out.push(`the page (${document.documentElement.scrollWidth})`);
		for (const el of document.querySelectorAll<HTMLElement>(".main *")) {
			const box = el.getBoundingClientRect();
			// Inside a scrolled box (a code block, a diff) running past is its own scrolling, not the page's.
			const scroller = el.parentElement?.closest("pre, .args, .command, .diff, .transcript-scroll");
			if (box.width > 0 && box.right > width + 0.5 && scroller === null)
				out.push(`${el.tagName.toLowerCase()}.${el.className} (${Math.round(box.right)})`);
		}
		return out;
	});
}

/** The button's whole box is inside the window, and a thumb's height (44 px). */
async function expectThumbable(page: Page, button: Locator): Promise<void> {
	await button.scrollIntoViewIfNeeded();
	const box = await button.boundingBox();
	const viewport = page.viewportSize();
	if (box === null || viewport === null) throw new Error("the button has no box");
	expect(box.x).toBeGreaterThanOrEqual(0);
	expect(box.y).toBeGreaterThanOrEqual(0);
	expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
	expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
	expect(box.height).toBeGreaterThanOrEqual(44);
}

describe("a phone-sized window (390 px)", { timeout: 60_000 }, () => {
	it("nothing runs past the right edge; Send and the approval's buttons are whole and thumb-sized", async () => {
		const app = await startApp();
		const page = await app.open();
		await page.setViewportSize(PHONE);
		await newSession(page);
		app.reply({
			text: "## A heading\n\nA paragraph of an answer, long enough to wrap on a phone screen several times over.\n\n```ts\nconst aVeryLongLineOfCode = someFunction(withArguments, thatRunFarPastTheEdgeOfAPhone, andMore);\n```",
		});
		await send(page, "a question");
		await page.getByText("A paragraph of an answer", { exact: false }).waitFor();
		await waitIdle(page);
		expect(await overflowing(page)).toEqual([]);
		await expectThumbable(page, page.getByRole("button", { name: "Send" }));

		app.reply({ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "x".repeat(300) } }] });
		await send(page, "write it");
		const card = page.getByRole("region", { name: /Allow write_file/ });
		await card.waitFor();
		expect(await overflowing(page)).toEqual([]);
		for (const name of [/Allow once/, /Always allow/, /Deny/])
			await expectThumbable(page, card.getByRole("button", { name }));
	});

	it("the first screen fits: a long agent name and a long folder run past nothing", async () => {
		const app = await startApp({
			agents: ["a_helper_agent_with_a_rather_long_name: { model: main, description: Finds facts. }"],
		});
		const page = await app.open();
		await page.setViewportSize(PHONE);
		await page.getByPlaceholder(/Ask the agent/).waitFor();
		await page.locator(".new-session-choices select").selectOption({ index: 1 });
		expect(await overflowing(page)).toEqual([]);
		await expectThumbable(page, page.getByRole("button", { name: "Send" }));
		await expectThumbable(page, page.getByRole("button", { name: "Start the Session" }));
	});

	it("the Session's actions fold behind one button, so the header leaves the screen to the transcript", async () => {
		const app = await startApp();
		const page = await app.open();
		await page.setViewportSize(PHONE);
		await newSession(page);
		app.reply({ text: "An answer." });
		await send(page, "a question");
		await page.getByText("An answer.").waitFor();
		await waitIdle(page);
		const header = page.locator(".chat-header");
		const exportButton = page.getByRole("button", { name: "Export Markdown" });
		expect(await exportButton.isVisible()).toBe(false);
		const folded = await header.boundingBox();
		expect(folded?.height).toBeLessThan(PHONE.height / 6);
		const more = page.getByRole("button", { name: "More…" });
		await expectThumbable(page, more);
		await more.click();
		await exportButton.waitFor();
		expect(await page.getByText("No AGENTS.md").isVisible()).toBe(true);
		expect(await overflowing(page)).toEqual([]);
		await page.getByRole("button", { name: "Less" }).click();
		await exportButton.waitFor({ state: "hidden" });
		// Wide: every action shows, and there is nothing to unfold.
		await page.setViewportSize({ width: 1280, height: 800 });
		await exportButton.waitFor();
		expect(await more.isVisible()).toBe(false);
	});

	it("the Sessions are a drawer: a button opens it, choosing a Session closes it", async () => {
		const app = await startApp();
		const page = await app.open();
		await page.setViewportSize(PHONE);
		const id = await newSession(page);
		const link = page.locator(`.session-link[data-session-id="${id}"]`);
		expect(await link.isVisible()).toBe(false);
		const open = page.getByRole("button", { name: "☰ Sessions" });
		await open.click();
		expect(await open.getAttribute("aria-expanded")).toBe("true");
		await link.waitFor({ state: "visible" });
		await page.getByRole("link", { name: "Usage" }).click();
		await page.waitForURL(/#\/usage/);
		await link.waitFor({ state: "hidden" });
		expect(await open.getAttribute("aria-expanded")).toBe("false");
		// Choosing the screen already shown closes it too.
		await open.click();
		await link.waitFor({ state: "visible" });
		await page.getByRole("link", { name: "Usage" }).click();
		await link.waitFor({ state: "hidden" });
		expect(await open.getAttribute("aria-expanded")).toBe("false");
		// Wide again: the sidebar is a column, and the drawer's button is gone.
		await page.setViewportSize({ width: 1280, height: 800 });
		await link.waitFor({ state: "visible" });
		expect(await open.isVisible()).toBe(false);
	});

	it("the drawer takes the keyboard: Enter opens it with the focus inside, Tab stays in it, Esc gives the focus back", async () => {
		const app = await startApp();
		const page = await app.open();
		await page.setViewportSize(PHONE);
		await newSession(page);
		const open = page.getByRole("button", { name: "☰ Sessions" });
		await open.focus();
		await page.keyboard.press("Enter");
		const inDrawer = () => page.evaluate(() => document.activeElement?.closest("#sidebar, .drawer-backdrop") != null);
		await expect.poll(inDrawer).toBe(true);
		for (let i = 0; i < 12; i++) {
			await page.keyboard.press("Tab");
			expect(await inDrawer(), `after ${i + 1} Tab(s)`).toBe(true);
		}
		await page.keyboard.press("Escape");
		expect(await open.getAttribute("aria-expanded")).toBe("false");
		await expect.poll(() => open.evaluate((button) => button === document.activeElement)).toBe(true);
	});

	it("a lost connection to the server shows on the screen, not only in the closed drawer", async () => {
		const app = await startApp();
		const page = await app.open();
		await page.setViewportSize(PHONE);
		await newSession(page);
		await app.proxy.close();
		await page.locator(".mobile-bar").getByRole("status").getByText("Reconnecting…").waitFor();
	});
});

describe("a touch screen", { timeout: 60_000 }, () => {
	it("the approval card leaves out the key hints (no keys to press) but keeps its buttons and Stop", async () => {
		const app = await startApp();
		const touch = await app.context.browser()?.newContext({ viewport: PHONE, hasTouch: true, isMobile: true });
		if (touch === undefined) throw new Error("no browser");
		try {
			const page = await touch.newPage();
			await page.goto(app.url);
			await newSession(page);
			app.reply({ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "x" } }] });
			await send(page, "write it");
			const card = page.getByRole("region", { name: /Allow write_file/ });
			await card.waitFor();
			expect(await card.locator("kbd").first().isVisible()).toBe(false);
			expect(await card.getByText("Keys while this card has focus").isVisible()).toBe(false);
			expect(await card.getByRole("button", { name: "Stop the Task instead" }).isVisible()).toBe(true);
			expect(await card.getByRole("button", { name: /Allow once/ }).isVisible()).toBe(true);
			// With a mouse and keys, the hints are there.
			const desk = await app.open(page.url().replace(/^.*#/, "#"));
			const deskCard = desk.getByRole("region", { name: /Allow write_file/ });
			await deskCard.waitFor();
			expect(await deskCard.locator("kbd").first().isVisible()).toBe(true);
			expect(await deskCard.getByText("Keys while this card has focus").isVisible()).toBe(true);
		} finally {
			await touch.close();
		}
	});
});

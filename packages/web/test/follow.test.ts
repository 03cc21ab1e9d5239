/// <reference lib="dom" />
// (Some callbacks below run in the browser.)
import { describe, expect, it } from "vitest";
import { answeredSession } from "./answered-session.js";
import { newSession, send, slowText, startApp, tempDirs, waitIdle } from "./harness.js";

/** How far the list's viewport is from its end, in pixels. */
const fromEnd = (el: Element) => el.scrollHeight - el.scrollTop - el.clientHeight;

describe("following the end of a streaming answer", { timeout: 90_000 }, () => {
	it("stops following when scrolled up while it streams, and follows again back at the end", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		// A paragraph every 80 ms for about 50 s: the answer is still streaming at every step below,
		// however slow a loaded machine makes them, so no step waits on growth that already ended.
		const answer = Array.from({ length: 600 }, (_, i) => `Paragraph ${i + 1} of a long answer.\n\n`).join("");
		app.reply(slowText(answer, 600, 80));
		await send(page, "talk for a long while");
		// The list itself (a log), not the placeholder that stands until the first message shows.
		const list = page.getByRole("log", { name: "Messages" });
		const handle = await list.elementHandle();
		const grownBy = async (px: number) => {
			const target = (await list.evaluate((el) => el.scrollHeight)) + px;
			await page.waitForFunction(
				([el, h]) => el !== null && (el as Element).scrollHeight > (h as number),
				[handle, target] as const,
				{
					timeout: 20_000,
				},
			);
		};
		// Long enough to scroll, and it follows the end meanwhile.
		await page.waitForFunction((el) => el !== null && el.scrollHeight > el.clientHeight + 1500, handle, {
			timeout: 20_000,
		});
		await expect.poll(() => list.evaluate(fromEnd)).toBeLessThan(80);
		// Scrolled up by the wheel, as a person does.
		await list.hover();
		await page.mouse.wheel(0, -800);
		await page.waitForFunction((el) => el !== null && el.scrollHeight - el.scrollTop - el.clientHeight > 600, handle);
		const top = await list.evaluate((el) => el.scrollTop);
		// More of the answer lands: it stays where the reader is.
		await grownBy(600);
		expect(Math.abs((await list.evaluate((el) => el.scrollTop)) - top)).toBeLessThan(5);
		expect(await list.evaluate(fromEnd)).toBeGreaterThan(1000);
		// Back at the end by the wheel: it follows again while more lands.
		for (let i = 0; i < 20 && (await list.evaluate(fromEnd)) > 40; i++) await page.mouse.wheel(0, 20_000);
		await grownBy(300);
		await expect.poll(() => list.evaluate(fromEnd)).toBeLessThan(80);
		await grownBy(300);
		await expect.poll(() => list.evaluate(fromEnd)).toBeLessThan(80);
		await page.getByRole("button", { name: "Stop" }).click();
		await waitIdle(page);
	});

	it("follows on through an answer ending (its streamed text swapped for the kept message) and an approval answered: the end stays in view", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		const long = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of what came before.\n\n`).join("");
		const ending = Array.from({ length: 20 }, (_, i) => `Closing line ${i + 1}.\n\n`).join("");
		app.reply(
			{ text: long },
			{ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "a" } }] },
			{ text: `${ending}The very end.` },
		);
		await send(page, "talk");
		await waitIdle(page);
		await send(page, "write a");
		const card = page.getByRole("region", { name: /Allow write_file/ });
		await card.getByRole("button", { name: /Allow once/ }).click();
		await page.getByText("The very end.").waitFor();
		await waitIdle(page);
		const list = page.locator(".transcript");
		await expect.poll(() => list.evaluate(fromEnd)).toBeLessThan(80);
	});

	it("the button back to the end leaves a code block's copy button at the foot of the view clickable, wide and phone-sized", async () => {
		const dirs = tempDirs();
		const answer = "Here it is:\n\n```sh\nnpm test\n```\n\nAnd a paragraph after it.";
		const id = await answeredSession(dirs.home, dirs.root, 30, answer);
		const app = await startApp({ home: dirs.home, root: dirs.root });
		for (const viewport of [
			{ width: 1200, height: 800 },
			{ width: 390, height: 844 },
		]) {
			const page = await app.open(`#/s/${id}`);
			await page.setViewportSize(viewport);
			await page.locator(".msg.user").getByText("Question 30", { exact: true }).waitFor();
			await page.locator(".chat-meta .badge", { hasText: "idle" }).waitFor();
			const list = page.locator(".transcript");
			// A copy button halfway up the Session, brought to the list's foot: the list is then away
			// from its end, so the button back there shows.
			const copy = '[data-streamdown="code-block-copy-button"]';
			await list.evaluate((el, selector) => {
				const buttons = el.querySelectorAll(selector);
				const button = buttons[Math.floor(buttons.length / 2)] as Element;
				const foot = el.getBoundingClientRect().bottom;
				el.scrollTop += button.getBoundingClientRect().bottom - foot + 2;
			}, copy);
			const jump = page.getByRole("button", { name: "↓ Jump to the latest" });
			await jump.waitFor();
			const band = await jump.boundingBox();
			if (band === null) throw new Error("the button back to the end has no box");
			// What a click at each visible copy button's middle lands on: the button itself. One of
			// them sits in the height the button back to the end floats at, or this shows nothing.
			// Measured until the virtualized list has laid out the rows at the new position (a later frame).
			const measure = () =>
				list.evaluate(
					(el, { selector, top, bottom }) => {
						const view = el.getBoundingClientRect();
						const boxes = [...el.querySelectorAll(selector)]
							.map((button) => button.getBoundingClientRect())
							.filter((box) => box.bottom <= view.bottom && box.top >= view.top);
						return {
							inBand: boxes.filter((box) => box.bottom > top && box.top < bottom).length,
							covered: boxes.filter((box) => {
								const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
								return hit?.closest(selector) == null;
							}).length,
						};
					},
					{ selector: copy, top: band.y, bottom: band.y + band.height },
				);
			let copies = await measure();
			await expect
				.poll(async () => {
					copies = await measure();
					return copies.inBand;
				})
				.toBeGreaterThan(0);
			expect(copies.covered, `at ${viewport.width} px`).toBe(0);
			await page.close();
		}
	});
});

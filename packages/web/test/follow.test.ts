import { describe, expect, it } from "vitest";
import { newSession, send, slowText, startApp, waitIdle } from "./harness.js";

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
});

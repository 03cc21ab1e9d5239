import { describe, expect, it } from "vitest";
import { newSession, send, slowText, startApp, waitIdle } from "./harness.js";

/** How far the list's viewport is from its end, in pixels. */
const fromEnd = (el: Element) => el.scrollHeight - el.scrollTop - el.clientHeight;

describe("following the end of a streaming answer", { timeout: 60_000 }, () => {
	it("stops following when scrolled up while it streams, and follows again back at the end", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		const answer = Array.from({ length: 400 }, (_, i) => `Paragraph ${i + 1} of a long answer.\n\n`).join("");
		app.reply(slowText(answer, 200, 40));
		await send(page, "talk for a long while");
		const list = page.locator(".transcript");
		// Long enough to scroll, and it follows the end meanwhile.
		await list.evaluate((el) => {
			return new Promise<void>((resolve) => {
				const check = () => (el.scrollHeight > el.clientHeight + 1500 ? resolve() : requestAnimationFrame(check));
				check();
			});
		});
		expect(await list.evaluate(fromEnd)).toBeLessThan(80);
		// Scrolled up by the wheel, as a person does.
		await list.hover();
		await page.mouse.wheel(0, -800);
		await page.waitForFunction(
			(el) => el !== null && el.scrollHeight - el.scrollTop - el.clientHeight > 600,
			await list.elementHandle(),
		);
		const top = await list.evaluate((el) => el.scrollTop);
		const height = await list.evaluate((el) => el.scrollHeight);
		// More of the answer lands: it stays where the reader is.
		await page.waitForFunction(([el, h]) => el !== null && (el as Element).scrollHeight > (h as number) + 600, [
			await list.elementHandle(),
			height,
		] as const);
		expect(Math.abs((await list.evaluate((el) => el.scrollTop)) - top)).toBeLessThan(5);
		expect(await list.evaluate(fromEnd)).toBeGreaterThan(1000);
		// Back at the end by the wheel: it follows again.
		for (let i = 0; i < 20 && (await list.evaluate(fromEnd)) > 40; i++) await page.mouse.wheel(0, 20_000);
		const again = await list.evaluate((el) => el.scrollHeight);
		await page.waitForFunction(([el, h]) => el !== null && (el as Element).scrollHeight > (h as number) + 300, [
			await list.elementHandle(),
			again,
		] as const);
		await page.locator(".msg.assistant").getByText("Paragraph 400 of a long answer.").waitFor();
		await waitIdle(page);
		await expect.poll(() => list.evaluate(fromEnd)).toBeLessThan(80);
	});
});

import { describe, expect, it } from "vitest";
import { answeredSession } from "./answered-session.js";
import { startApp, tempDirs } from "./harness.js";

const TASKS = 1000;

describe("a long Session", { timeout: 120_000 }, () => {
	it("2,000 messages open at the end, virtualized, and scroll to the first", async () => {
		const dirs = tempDirs();
		const id = await answeredSession(dirs.home, dirs.root, TASKS);
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
		// Away from the end, a button takes the reader back there.
		const jump = page.getByRole("button", { name: "↓ Jump to the latest" });
		await jump.click();
		await page.locator(".msg.user").getByText(`Question ${TASKS}`, { exact: true }).waitFor();
		await jump.waitFor({ state: "detached" });
		await list.evaluate((el) => el.scrollTo(0, el.scrollHeight / 2));
		// The virtualized list renders the rows of the new position at a later frame: polled until
		// they show (a busy machine may first show the end's rows again, which are above 30% too).
		const firstShown = async () =>
			Number(((await page.locator(".msg.user").first().textContent()) ?? "").replace("Question ", ""));
		await expect.poll(firstShown).toSatisfy((first: number) => first > TASKS * 0.3 && first < TASKS * 0.7);
	});
});

import { describe, expect, it } from "vitest";
import { answeredSession } from "./answered-session.js";
import { startApp, tempDirs } from "./harness.js";

const TASKS = 60;

describe("a message's choices", { timeout: 60_000 }, () => {
	it("'Fork from here' stays open when its message is scrolled out of the (virtualized) list and back", async () => {
		const dirs = tempDirs();
		const id = await answeredSession(dirs.home, dirs.root, TASKS);
		const app = await startApp({ home: dirs.home, root: dirs.root });
		const page = await app.open(`#/s/${id}`);
		const last = page.locator(".user-turn").filter({ hasText: `Question ${TASKS}` });
		await last.getByRole("button", { name: "Fork from here" }).click();
		const form = page.getByRole("form", { name: "Fork from before this message" });
		await form.waitFor();
		// Scrolled up by the wheel, as a person does (the list keeps to its end until they scroll up).
		const list = page.locator(".transcript");
		await list.hover();
		for (let i = 0; i < 40 && (await list.evaluate((el) => el.scrollTop)) > 0; i++) await page.mouse.wheel(0, -20_000);
		await page.locator(".msg.user").getByText("Question 1", { exact: true }).waitFor();
		// Out of the DOM, not merely out of view: the row was unmounted.
		await expect.poll(() => last.count()).toBe(0);
		for (let i = 0; i < 40 && (await last.count()) === 0; i++) await page.mouse.wheel(0, 20_000);
		await last.waitFor();
		await form.waitFor();
		expect(await last.getByRole("button", { name: "Fork from here" }).count()).toBe(0);
	});
});

import { describe, expect, it } from "vitest";
import { newSession, send, startApp, waitIdle } from "./harness.js";

describe("managing Sessions in the sidebar and the header", { timeout: 60_000 }, () => {
	it("search by title filters the list; Delete asks first, then deletes", async () => {
		const app = await startApp();
		const page = await app.open();
		const first = await newSession(page);
		app.reply({ text: "ok" });
		await send(page, "alpha question");
		await waitIdle(page);
		await page.goto(app.url.replace(/#.*/, "#/"));
		const second = await newSession(page);
		app.reply({ text: "ok" });
		await send(page, "beta question");
		await waitIdle(page);
		const link = (id: string) => page.locator(`.session-link[data-session-id="${id}"]`);
		await expect.poll(() => link(first).textContent()).toContain("alpha question");

		await page.getByRole("searchbox", { name: "Search the Sessions by title" }).fill("ALPHA");
		await link(second).waitFor({ state: "detached" });
		expect(await link(first).count()).toBe(1);
		await page.getByRole("searchbox", { name: "Search the Sessions by title" }).fill("");
		await link(second).waitFor();

		await page.getByRole("button", { name: "Delete…" }).click();
		const ask = page.getByRole("group", { name: "Delete this Session?" });
		await ask.getByRole("button", { name: "Keep it" }).click();
		expect((await app.api(`/chat/sessions/${second}?limit=0`)).status).toBe(200);
		await page.getByRole("button", { name: "Delete…" }).click();
		await ask.getByRole("button", { name: "Delete it" }).click();
		await page.waitForURL(/#\/$/);
		await link(second).waitFor({ state: "detached" });
		expect((await app.api(`/chat/sessions/${second}?limit=0`)).status).toBe(404);
		expect(await link(first).count()).toBe(1);
	});
});

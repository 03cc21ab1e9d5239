/// <reference lib="dom" />
// (The evaluate callback below runs in the browser.)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type App, newSession, send, startApp, waitIdle } from "./harness.js";

/** The usage page after one Task that used `usage`: its chart of tokens per day drawn. */
async function usageAfterOneTask(app: App, usage: { input: number; output: number }) {
	const page = await app.open();
	await newSession(page);
	app.reply({ text: "One.", usage });
	await send(page, "first");
	await waitIdle(page);
	await page.getByRole("link", { name: "Usage" }).click();
	await page.getByRole("img", { name: "Tokens per day" }).locator("canvas").waitFor();
	return page;
}

describe("the usage page", { timeout: 60_000 }, () => {
	it("charts tokens and cost per day and per model, with the cache-read share and a row per Session", async () => {
		const app = await startApp({ modelExtra: "price: { input: 3, output: 15, cacheRead: 0.3 }" });
		const page = await app.open();
		await newSession(page);
		app.reply({ text: "One.", usage: { input: 1000, output: 200, cacheRead: 400 } });
		await send(page, "first");
		await waitIdle(page);
		app.reply({ text: "Two.", usage: { input: 3000, output: 300, cacheRead: 600 } });
		await send(page, "second");
		await waitIdle(page);

		await page.getByRole("link", { name: "Usage" }).click();
		const usage = page.getByRole("region", { name: "Usage" });
		await usage.getByRole("img", { name: "Tokens per day" }).locator("canvas").waitFor();
		// Tokens and cost, per day and per model.
		expect(await usage.locator(".chart canvas").count()).toBe(4);
		expect(await usage.getByRole("img", { name: "Cost per model (USD)" }).count()).toBe(1);
		const totals = usage.locator(".usage-totals");
		await expect.poll(() => totals.textContent()).toContain("4.5k");
		// 1,000 of 4,000 input tokens were cache reads.
		expect(await totals.textContent()).toContain("25%");
		// (600 + 2400 uncached input) × $3 + 1000 cached × $0.3 + 500 output × $15, per million.
		expect(await totals.textContent()).toContain("$0.017");
		const perModel = usage.getByRole("table", { name: "Per model" });
		expect(await perModel.getByRole("row").count()).toBe(2);
		expect(await perModel.textContent()).toContain("fake-model");
		const perSession = usage.getByRole("table", { name: "Per Session" });
		expect(await perSession.getByRole("row").count()).toBe(2);
		// The chart drew bars: its canvas is not blank.
		const painted = await usage
			.getByRole("img", { name: "Tokens per day" })
			.locator("canvas")
			.evaluate((canvas: HTMLCanvasElement) => {
				const data = canvas.getContext("2d")?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
				let colored = 0;
				for (let i = 3; i < data.length; i += 4) if ((data[i] ?? 0) > 0) colored++;
				return colored;
			});
		expect(painted).toBeGreaterThan(500);
	});

	it("without a price set, the cost says so and no empty dollar chart stands beside the tokens", async () => {
		const page = await usageAfterOneTask(await startApp(), { input: 1000, output: 200 });
		const usage = page.getByRole("region", { name: "Usage" });
		expect(await usage.locator(".chart canvas").count()).toBe(2);
		expect(await usage.getByRole("img", { name: "Cost per day (USD)" }).count()).toBe(0);
		expect(await usage.locator(".usage-totals").textContent()).toContain("no price set");
	});

	it("one model without a price hides none of the priced ones' cost: the total counts them and names the unpriced", async () => {
		const app = await startApp({ modelExtra: "price: { input: 3, output: 15 }" });
		const yaml = join(app.root, "omniloop.yaml");
		const cheap = `  cheap: { provider: openai-compatible, model: cheap-model, baseURL: "${app.provider.url}/v1", apiKey: "\${FAKE_KEY}" }`;
		writeFileSync(yaml, readFileSync(yaml, "utf8").replace("\nagents:", `\n${cheap}\nagents:`));
		// The two Tasks over the API, each read to its end: only the usage page is the app's here.
		const created = await app.api("/chat/sessions", { method: "POST", json: {} });
		const { id } = (await created.json()) as { id: string };
		const task = async (text: string) => {
			const streamed = await app.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text } });
			expect(await streamed.text()).toContain('"type":"done"');
		};
		app.reply({ text: "One.", usage: { input: 1_000_000, output: 0 } });
		await task("first");
		expect((await app.api(`/chat/sessions/${id}`, { method: "PATCH", json: { model: "cheap" } })).status).toBe(200);
		app.reply({ text: "Two.", usage: { input: 1000, output: 0 } });
		await task("second");
		const page = await app.open("#/usage");
		const usage = page.getByRole("region", { name: "Usage" });
		await usage.getByRole("img", { name: "Tokens per day" }).locator("canvas").waitFor();
		const totals = usage.locator(".usage-totals");
		await expect.poll(() => totals.textContent()).toContain("$3.00, and openai-compatible:cheap-model (no price set)");
		expect(await usage.getByRole("img", { name: "Cost per model with a price (USD)" }).count()).toBe(1);
	});

	it("the charts' axis labels follow a theme switch, with no reload", async () => {
		const page = await usageAfterOneTask(await startApp(), { input: 1000, output: 200 });
		const chart = page.getByRole("img", { name: "Tokens per day" });
		const textColor = () =>
			page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue("--text").trim());
		const before = await chart.getAttribute("data-axis-color");
		expect(before).toBe(await textColor());
		await page.getByRole("button", { name: /Switch to the (dark|light) theme/ }).click();
		const after = await textColor();
		expect(after).not.toBe(before);
		await expect.poll(() => chart.getAttribute("data-axis-color")).toBe(after);
	});
});

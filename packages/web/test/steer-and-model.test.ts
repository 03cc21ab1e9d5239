/// <reference lib="dom" />
// (Some callbacks below run in the browser.)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type App, newSession, send, startApp, waitIdle } from "./harness.js";

/** A second model, `fast`, on the same fake provider, added to omniloop.yaml (read again per request). */
function addFastModel(app: App): void {
	const file = join(app.root, "omniloop.yaml");
	const fast = `  fast: { provider: openai-compatible, model: fast-model, baseURL: "${app.provider.url}/v1", apiKey: "\${FAKE_KEY}" }`;
	writeFileSync(file, readFileSync(file, "utf8").replace("\nagents:", `\n${fast}\nagents:`));
}

describe("steering at an approval, and the Session's model", { timeout: 60_000 }, () => {
	it("sends the draft as a steer from the approval card; the call still waits, and the model reads the steer after the answer", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		app.reply(
			{ toolCalls: [{ name: "write_file", arguments: { path: "s.txt", content: "s" } }] },
			{ text: "Wrote s." },
		);
		await send(page, "write s");
		const card = page.getByRole("region", { name: /Allow write_file/ });
		await card.waitFor();
		const field = card.getByRole("textbox", { name: "Steer while it waits" });
		// Typed in the field, y and n are letters: the call is not answered.
		await field.fill("say yes and no twice");
		await field.press("y");
		await field.press("n");
		await card.getByRole("button", { name: "Steer", exact: true }).click();
		await card.getByRole("list", { name: "Queued steers" }).getByText("say yes and no twiceyn").waitFor();
		expect(await field.inputValue()).toBe("");
		expect(await card.count()).toBe(1);
		expect(app.provider.requests).toHaveLength(1);

		// Ctrl+Enter on the card sends what was typed into it since, too.
		await card.focus();
		await page.waitForTimeout(800);
		await page.keyboard.type("xkeep it short", { delay: 10 });
		expect(await field.inputValue()).toBe("xkeep it short");
		await page.keyboard.press("Control+Enter");
		await card.getByRole("list", { name: "Queued steers" }).getByText("xkeep it short").waitFor();
		expect(await card.count()).toBe(1);

		// The single-key answers still work away from the field, after a pause in typing.
		await card.focus();
		await page.waitForTimeout(800);
		await page.keyboard.press("y");
		await page.getByText("Wrote s.").waitFor();
		await waitIdle(page);
		const steers = page.getByRole("article", { name: "Steer" });
		await expect
			.poll(() => steers.allTextContents())
			.toEqual([expect.stringContaining("say yes and no twiceyn"), expect.stringContaining("xkeep it short")]);
		expect(readFileSync(join(app.root, "s.txt"), "utf8")).toBe("s");
		expect(app.provider.requests).toHaveLength(2);
		const second = app.provider.requests[1]?.rawBody ?? "";
		expect(second).toContain("[user_steering]say yes and no twiceyn[/user_steering]");
		expect(second).toContain("[user_steering]xkeep it short[/user_steering]");
		expect(app.provider.requests[0]?.rawBody).not.toContain("user_steering");
	});

	it("picks another configured model in the Session header: the next Task runs on it", async () => {
		const app = await startApp();
		addFastModel(app);
		const page = await app.open();
		await newSession(page);
		app.reply({ text: "From main." });
		await send(page, "first");
		await page.getByText("From main.").waitFor();
		await waitIdle(page);
		const picker = page.getByRole("combobox", { name: "Model" });
		expect(await picker.locator("option").allTextContents()).toEqual([
			"main (openai-compatible:fake-model)",
			"fast (openai-compatible:fast-model)",
		]);
		expect(await picker.inputValue()).toBe("main");
		await picker.selectOption("fast");
		await expect.poll(() => picker.inputValue()).toBe("fast");
		await expect.poll(() => page.locator(".chat-meta").textContent()).toContain("fast (openai-compatible:fast-model)");
		app.reply({ text: "From fast." });
		await send(page, "second");
		await page.getByText("From fast.").waitFor();
		await waitIdle(page);
		expect(app.provider.requests.map((r) => (r.body as { model?: string }).model)).toEqual([
			"fake-model",
			"fast-model",
		]);
		// The Session says so after a reload too.
		await page.reload();
		await expect.poll(() => page.getByRole("combobox", { name: "Model" }).inputValue()).toBe("fast");
	});
});

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { type App, newSession, send, slowText, startApp, waitIdle } from "./harness.js";

/** Forty numbered paragraphs, streamed over ~2.5 s. */
const PARAGRAPHS = Array.from({ length: 40 }, (_, i) => `Paragraph ${i + 1} of the answer.`);
const ANSWER = PARAGRAPHS.join("\n\n");

/** A page of a new Session whose long answer is streaming: a fifth of it is shown. */
async function midAnswer(app: App): Promise<Page> {
	const page = await app.open();
	await newSession(page);
	app.reply(slowText(ANSWER, 40, 60));
	await send(page, "a long answer please");
	await page.getByText("Paragraph 8 of", { exact: false }).waitFor();
	return page;
}

/** Once the answer has ended: every paragraph shows exactly once, in one answer. */
async function expectAnswerOnce(page: Page): Promise<void> {
	await page.getByText("Paragraph 40 of the answer.").waitFor();
	await waitIdle(page);
	const answers = page.locator(".msg.assistant");
	expect(await answers.count()).toBe(1);
	const text = (await answers.textContent()) ?? "";
	for (const paragraph of PARAGRAPHS) expect(text.split(paragraph).length - 1, paragraph).toBe(1);
	// The question is above, out of the virtualized list's window: scroll up to it.
	await page.locator(".transcript").evaluate((el) => el.scrollTo(0, 0));
	await expect.poll(() => page.getByRole("article", { name: "You" }).count()).toBe(1);
}

describe("the tab's event stream", { timeout: 60_000 }, () => {
	it("a reload mid-stream shows the whole answer exactly once", async () => {
		const app = await startApp();
		const page = await midAnswer(app);
		await page.reload();
		await expectAnswerOnce(page);
	});

	it("a dropped connection resumes after the last seq: nothing lost, nothing doubled", async () => {
		const app = await startApp();
		const page = await midAnswer(app);
		const resumed = page.waitForRequest((r) => r.url().includes("/events?") && !r.url().includes("after=0"));
		expect(app.proxy.dropAll()).toBeGreaterThan(0);
		const url = new URL((await resumed).url());
		expect(Number(url.searchParams.get("after"))).toBeGreaterThan(0);
		await expectAnswerOnce(page);
	});

	it("two tabs on one Session stay in step: either one answers an approval, both see it", async () => {
		const app = await startApp();
		const first = await app.open();
		const id = await newSession(first);
		const second = await app.open(`#/s/${id}`);
		await second.getByRole("textbox", { name: "Message" }).waitFor();
		app.reply(
			{ toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "x" } }] },
			{ text: "Wrote x." },
		);
		await send(first, "write x");
		const card = (page: Page) => page.getByRole("region", { name: /Allow write_file/ });
		await card(first).waitFor();
		await card(second).waitFor();
		await card(second)
			.getByRole("button", { name: /Allow once/ })
			.click();
		await card(first).waitFor({ state: "detached" });
		for (const page of [first, second]) {
			await page.getByText("Wrote x.").waitFor();
			await waitIdle(page);
			expect(await page.getByRole("article", { name: "Tool write_file: ok" }).count()).toBe(1);
			expect(await page.locator(".msg.assistant").count()).toBe(1);
		}
		// The sidebar of each tab lists the Session once, idle.
		expect(await second.locator(`[data-session-id="${id}"] .badge`).textContent()).toBe("idle");
	});

	it("a reload while a call waits for approval shows the approval again, and answering it works", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		app.reply(
			{ toolCalls: [{ name: "write_file", arguments: { path: "r.txt", content: "r" } }] },
			{ text: "Wrote r." },
		);
		await send(page, "write r");
		const card = page.getByRole("region", { name: /Allow write_file/ });
		await card.waitFor();
		await page.reload();
		await card.waitFor();
		await card.getByRole("button", { name: /Allow once/ }).click();
		await page.getByText("Wrote r.").waitFor();
		await waitIdle(page);
		expect(await page.getByRole("article", { name: "Tool write_file: ok" }).count()).toBe(1);
	});

	it("a question left open by a server that went down is over: no card waits on it, the next Task asks only its own", async () => {
		const first = await startApp();
		const page = await first.open();
		const id = await newSession(page);
		first.reply({ toolCalls: [{ name: "write_file", arguments: { path: "dead.txt", content: "x" } }] });
		await send(page, "write dead");
		await page.getByRole("region", { name: /Allow write_file/ }).waitFor();
		await page.close();
		await first.server.close();
		// What a SIGKILL leaves: the Trace ends at the question, with no `done`.
		const trace = join(first.home, "sessions", id, "trace.jsonl");
		const lines = readFileSync(trace, "utf8").split("\n");
		const asked = lines.findIndex((line) => line.includes('"confirmation_required"'));
		expect(asked).toBeGreaterThan(0);
		writeFileSync(trace, `${lines.slice(0, asked + 1).join("\n")}\n`);

		const app = await startApp({ home: first.home, root: first.root });
		const again = await app.open(`#/s/${encodeURIComponent(id)}`);
		await again.getByRole("article", { name: "Tool write_file: interrupted" }).waitFor();
		await waitIdle(again);
		app.reply(
			{ toolCalls: [{ name: "write_file", arguments: { path: "live.txt", content: "y" } }] },
			{ text: "Wrote live." },
		);
		await send(again, "write live");
		const card = again.getByRole("region", { name: /Allow write_file/ });
		await card.waitFor();
		expect(await card.textContent()).toContain("live.txt");
		expect(await card.textContent()).not.toContain("more waiting");
		await card.getByRole("button", { name: /Allow once/ }).click();
		await again.getByText("Wrote live.").waitFor();
		await card.waitFor({ state: "detached" });
		await waitIdle(again);
	});
});

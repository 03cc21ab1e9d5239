import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { newSession, send, startApp, tempDirs, waitIdle } from "./harness.js";

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
		// Each says when it was last active, with the exact time on hover.
		const when = link(first).locator("time");
		expect(await when.textContent()).toBe("just now");
		const stamp = Date.parse((await when.getAttribute("datetime")) ?? "");
		expect(Math.abs(Date.now() - stamp)).toBeLessThan(60_000);
		expect(await when.getAttribute("title")).toMatch(/^Last active /);

		await page.getByRole("searchbox", { name: "Search the Sessions" }).fill("ALPHA");
		await link(second).waitFor({ state: "detached" });
		expect(await link(first).count()).toBe(1);
		await page.getByRole("searchbox", { name: "Search the Sessions" }).fill("");
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

	it("search finds Sessions by the text of their messages too, showing where", async () => {
		const app = await startApp();
		const page = await app.open();
		const first = await newSession(page);
		app.reply({ text: "The capital of Portugal is Lisbon." });
		await send(page, "a geography question");
		await waitIdle(page);
		await page.goto(app.url.replace(/#.*/, "#/"));
		const second = await newSession(page);
		app.reply({ text: "ok" });
		await send(page, "something else");
		await waitIdle(page);
		const link = (id: string) => page.locator(`.session-link[data-session-id="${id}"]`);
		await link(first).waitFor();
		await page.getByRole("searchbox", { name: "Search the Sessions" }).fill("PORTUGAL is");
		await link(second).waitFor({ state: "detached" });
		await link(first).locator(".session-snippet").waitFor();
		expect(await link(first).locator(".session-snippet").textContent()).toBe("The capital of Portugal is Lisbon.");
	});

	it("renames a Session in place in the sidebar: Enter saves, a bad title is refused with the server's reason, Esc keeps the title", async () => {
		const app = await startApp();
		const page = await app.open();
		const id = await newSession(page);
		app.reply({ text: "ok" });
		await send(page, "alpha question");
		await waitIdle(page);
		const link = page.locator(`.session-link[data-session-id="${id}"]`);
		await expect.poll(() => link.textContent()).toContain("alpha question");
		const title = async () =>
			((await (await app.api("/chat/sessions")).json()) as { sessions: { title: string | null }[] }).sessions[0]?.title;

		await page.getByRole("button", { name: "Rename alpha question" }).click();
		const field = page.getByRole("textbox", { name: "New title" });
		await field.fill("  Trip to Lisbon ");
		await field.press("Enter");
		await expect.poll(() => link.textContent()).toContain("Trip to Lisbon");
		expect(await title()).toBe("Trip to Lisbon");

		await page.getByRole("button", { name: "Rename Trip to Lisbon" }).click();
		await field.fill("   ");
		await field.press("Enter");
		await page.getByRole("alert").filter({ hasText: "title: empty once trimmed" }).waitFor();
		await field.fill("Not this one");
		await field.press("Escape");
		await link.waitFor();
		expect(await link.textContent()).toContain("Trip to Lisbon");
		expect(await title()).toBe("Trip to Lisbon");
	});

	it("exports a Session as Markdown and as JSON (its OmniMessages)", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		app.reply({ toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }, { text: "Three lines." });
		await send(page, "count the notes");
		await page.getByText("Three lines.").waitFor();
		await waitIdle(page);
		const saved = async (button: string) => {
			const [file] = await Promise.all([
				page.waitForEvent("download"),
				page.getByRole("button", { name: button }).click(),
			]);
			const copy = join(tempDirs().home, file.suggestedFilename());
			await file.saveAs(copy);
			return readFileSync(copy, "utf8");
		};
		const markdown = await saved("Export Markdown");
		expect(markdown).toContain("## You\n\ncount the notes");
		expect(markdown).toContain("### Tool call: read_file");
		expect(markdown).toContain("## Agent\n\nThree lines.");
		const json = JSON.parse(await saved("Export JSON")) as { type: string; text?: string }[];
		expect(json.map((m) => m.type)).toContain("tool_call_output");
		expect(json.find((m) => m.type === "assistant_text")?.text).toBe("Three lines.");
	});
});

/// <reference lib="dom" />
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { newSession, send, startApp, waitIdle } from "./harness.js";

describe("instructions, undo, rewind, fork and files changed in the browser", { timeout: 90_000 }, () => {
	it("the header lists AGENTS.md; 'Undo changes' on a turn, 'Files changed', 'Rewind to here' and 'Fork from here' on a message", async () => {
		const app = await startApp();
		writeFileSync(join(app.root, "AGENTS.md"), "Be brief.\n");
		const page = await app.open();
		await newSession(page);
		await page.getByLabel("Instructions").getByText(join(app.root, "AGENTS.md")).waitFor();
		app.reply(
			{ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "hello" } }] },
			{ text: "wrote a" },
		);
		await send(page, "write a");
		await page
			.getByRole("region", { name: /Allow write_file/ })
			.getByRole("button", { name: /Allow once/ })
			.click();
		await page.getByText("wrote a").waitFor();
		await waitIdle(page);
		expect(readFileSync(join(app.root, "a.txt"), "utf8")).toBe("hello");
		await page.getByText("Files changed").click();
		await page.getByRole("region", { name: "a.txt" }).getByText("+hello").waitFor();
		await page.getByRole("button", { name: "Undo changes" }).click();
		await page.getByText("Restored 1 file(s).").waitFor();
		expect(existsSync(join(app.root, "a.txt"))).toBe(false);

		app.reply({ text: "second answer" });
		await send(page, "second");
		await page.getByText("second answer").waitFor();
		await waitIdle(page);
		const second = page.locator(".user-turn").filter({ hasText: "second" });
		await second.getByRole("button", { name: "Rewind to here" }).click();
		await page.getByText("Rewound: the conversation goes on from here.").waitFor();
		await expect.poll(() => page.getByText("second answer").count()).toBe(0);
		const first = page.locator(".user-turn").filter({ hasText: "write a" });
		const before = page.url();
		await first.getByRole("button", { name: "Fork from here" }).click();
		await expect.poll(() => page.url()).not.toBe(before);
		await page.getByText("No messages yet").waitFor();
	});
});

/// <reference lib="dom" />
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { type App, newSession, send, startApp, waitIdle } from "./harness.js";

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
		// The files it would change first (on an older turn, every later turn's too); nothing restored yet.
		const undoing = page.getByRole("region", { name: "Undo changes" });
		await undoing.getByRole("list", { name: "Files a restore changes" }).getByText("a.txt").waitFor();
		expect(await undoing.locator(".file-status").textContent()).toBe("deleted");
		expect(readFileSync(join(app.root, "a.txt"), "utf8")).toBe("hello");
		await undoing.getByRole("button", { name: "Restore these files" }).click();
		await page.getByText("Restored 1 file(s).").waitFor();
		expect(existsSync(join(app.root, "a.txt"))).toBe(false);
		// Done: the preview of what a restore would do closes (it is out of date now).
		await undoing.waitFor({ state: "detached" });

		app.reply({ text: "second answer" });
		await send(page, "second");
		await page.getByText("second answer").waitFor();
		await waitIdle(page);
		const second = page.locator(".user-turn").filter({ hasText: "second" });
		await second.getByRole("button", { name: "Rewind to here" }).click();
		await second.getByRole("button", { name: "Conversation and files" }).click();
		await page.getByText("Rewound: the conversation goes on from here.").waitFor();
		await expect.poll(() => page.getByText("second answer").count()).toBe(0);
		const first = page.locator(".user-turn").filter({ hasText: "write a" });
		const before = page.url();
		await first.getByRole("button", { name: "Fork from here" }).click();
		await first.getByRole("button", { name: "Fork", exact: true }).click();
		await expect.poll(() => page.url()).not.toBe(before);
		await page.getByText("No messages yet").waitFor();
	});

	it("the checkpoint list: a turn's checkpoint with its time and files, restored from the list, and that restore undone", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		await writeTurn(app, page, "write a", "a.txt", "hello\nworld\n");
		await page.getByText("Checkpoints").click();
		const first = page.getByRole("listitem", { name: "Checkpoint 1" });
		await first.getByText("before the changes of “write a”").waitFor();
		expect(await first.locator("time").textContent()).toMatch(/\d{1,2}:\d{2}:\d{2}/);
		await first.getByText("#1").click();
		const files = first.getByRole("list", { name: "Files a restore changes" });
		await files.getByText("deleted a.txt +0 −2").waitFor();
		await first.getByRole("button", { name: "Restore" }).click();
		await page.getByRole("region", { name: "Restore" }).getByText("Restored 1 file(s).").waitFor();
		expect(existsSync(join(app.root, "a.txt"))).toBe(false);
		// The restore was checkpointed first: the list shows it, and the notice undoes it.
		await page.getByRole("listitem", { name: "Checkpoint 2" }).getByText("before restoring #1").waitFor();
		await page.getByRole("region", { name: "Restore" }).getByRole("button", { name: "Undo this restore" }).click();
		// Polled for its content, not its existence: git's checkout creates the file, then writes it.
		const a = join(app.root, "a.txt");
		await expect.poll(() => (existsSync(a) ? readFileSync(a, "utf8") : undefined)).toBe("hello\nworld\n");
		await page.getByRole("listitem", { name: "Checkpoint 3" }).waitFor();
	});

	it("rewind: the conversation only keeps the files; with the files, the conflicts it kept stay shown and can be overwritten", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		await writeTurn(app, page, "write a", "a.txt", "from the agent\n");
		const writeA = page.locator(".user-turn").filter({ hasText: "write a" });
		await writeA.getByRole("button", { name: "Rewind to here" }).click();
		await writeA.getByRole("button", { name: "Conversation only" }).click();
		await page.getByText("Rewound: the conversation goes on from here.").waitFor();
		await expect.poll(() => page.locator(".user-turn").filter({ hasText: "write a" }).count()).toBe(0);
		expect(readFileSync(join(app.root, "a.txt"), "utf8")).toBe("from the agent\n");

		await writeTurn(app, page, "write b", "b.txt", "from the agent\n");
		writeFileSync(join(app.root, "b.txt"), "the person's\n");
		const writeB = page.locator(".user-turn").filter({ hasText: "write b" });
		await writeB.getByRole("button", { name: "Rewind to here" }).click();
		await writeB.getByRole("button", { name: "Conversation and files" }).click();
		const restore = page.getByRole("region", { name: "Restore" });
		await restore.getByText("Restored 0 file(s). Kept, changed outside the agent: b.txt.").waitFor();
		await page.getByText("Rewound: the conversation goes on from here.").last().waitFor();
		await expect.poll(() => page.locator(".user-turn").filter({ hasText: "write b" }).count()).toBe(0);
		expect(readFileSync(join(app.root, "b.txt"), "utf8")).toBe("the person's\n");
		// After a reload, rebuilt from the Session's messages, the same.
		await page.reload();
		await restore.getByText("Kept, changed outside the agent: b.txt.").waitFor();
		await restore.getByRole("button", { name: "Overwrite them too" }).click();
		await expect.poll(() => existsSync(join(app.root, "b.txt"))).toBe(false);
	});

	it("fork into a new folder beside the workspace: the files as they were before the message, the header names its parent; a folder outside the roots or inside the workspace is refused", async () => {
		const app = await startApp();
		const page = await app.open();
		// The Session works in a folder of the root, so a fork's folder can lie beside it.
		const workspace = join(app.root, "proj");
		mkdirSync(workspace);
		const folderBox = page.getByRole("form", { name: "New Session" }).getByLabel("Folder", { exact: true });
		// The roots are in (the field shows the first) before it is changed.
		await expect.poll(() => folderBox.inputValue()).toBe(app.root);
		await folderBox.fill(workspace);
		const parentId = await newSession(page);
		await page.locator(".chat-meta .workspace", { hasText: workspace }).waitFor();
		await writeTurn(app, page, "write a", "a.txt", "first\n");
		await writeTurn(app, page, "write b", "b.txt", "second\n");
		const writeB = page.locator(".user-turn").filter({ hasText: "write b" });
		await writeB.getByRole("button", { name: "Fork from here" }).click();
		const form = writeB.getByRole("form", { name: "Fork from before this message" });
		// The two choices are one radio group: arrow keys move between them.
		const where = form.getByRole("group", { name: "Fork into" });
		const same = where.getByRole("radio", { name: "Same folder" });
		const fresh = where.getByRole("radio", { name: /New folder/ });
		expect(await same.getAttribute("name")).toBeTruthy();
		expect(await fresh.getAttribute("name")).toBe(await same.getAttribute("name"));
		await same.focus();
		await same.press("ArrowDown");
		await expect.poll(() => fresh.isChecked()).toBe(true);
		await fresh.press("ArrowUp");
		await expect.poll(() => same.isChecked()).toBe(true);
		const folder = form.getByRole("textbox", { name: "New folder" });
		await folder.fill(join(app.root, "..", "outside"));
		await form.getByRole("button", { name: "Fork", exact: true }).click();
		await form.locator(".error-text", { hasText: "is outside the workspace roots" }).waitFor();
		expect(existsSync(join(app.root, "..", "outside"))).toBe(false);
		// Inside the workspace, the fork's files would be in the parent's checkpoints.
		await folder.fill(join(workspace, "nested"));
		await form.getByRole("button", { name: "Fork", exact: true }).click();
		await form.locator(".error-text", { hasText: "must not lie one inside the other" }).waitFor();
		expect(existsSync(join(workspace, "nested"))).toBe(false);
		const inside = join(app.root, "forked");
		await folder.fill(inside);
		const before = page.url();
		await form.getByRole("button", { name: "Fork", exact: true }).click();
		await expect.poll(() => page.url()).not.toBe(before);
		await page.locator(".chat-meta .workspace", { hasText: inside }).waitFor();
		expect(readFileSync(join(inside, "a.txt"), "utf8")).toBe("first\n");
		expect(existsSync(join(inside, "b.txt"))).toBe(false);
		expect(readFileSync(join(workspace, "b.txt"), "utf8")).toBe("second\n");
		const forkedFrom = page.locator(".chat-meta .forked-from");
		// The parent's title: its first message (a Session is named after it).
		await forkedFrom.getByText("forked from write a").waitFor();
		expect(await forkedFrom.getAttribute("href")).toBe(`#/s/${encodeURIComponent(parentId)}`);
	});
});

/** One turn that writes `path` (approved once in the page), then answers. */
async function writeTurn(app: App, page: Page, message: string, path: string, content: string): Promise<void> {
	app.reply({ toolCalls: [{ name: "write_file", arguments: { path, content } }] }, { text: `wrote ${path}` });
	await send(page, message);
	await page
		.getByRole("region", { name: /Allow write_file/ })
		.getByRole("button", { name: /Allow once/ })
		.click();
	await page.getByText(`wrote ${path}`).waitFor();
	await waitIdle(page);
}

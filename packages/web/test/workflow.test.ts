import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { type App, startApp } from "./harness.js";

const write = (path: string, content: string) => ({
	toolCalls: [{ name: "write_file", arguments: { path, content } }],
});

async function startWorkflow(app: App, input: string): Promise<{ id: string; sessionId: string }> {
	const response = await app.api("/workflows", { method: "POST", json: { input } });
	expect(response.status).toBe(202);
	return (await response.json()) as { id: string; sessionId: string };
}

async function workflowStatus(app: App, id: string): Promise<string> {
	return ((await (await app.api(`/workflows/${id}`)).json()) as { status: string }).status;
}

/** The workflow's approval card, armed (its buttons wait a moment after it appears). */
async function armedCard(page: Page, tool: string) {
	const card = page.getByRole("region", { name: new RegExp(`Allow ${tool}`) });
	await card.waitFor();
	await expect.poll(() => card.getByRole("button", { name: /Deny/ }).isEnabled()).toBe(true);
	return card;
}

describe("a workflow's Session in the web app", { timeout: 60_000 }, () => {
	it("its approvals go to the workflow, Resume runs them, and the composer says why it is closed", async () => {
		const app = await startApp();
		app.reply(write("a.txt", "from the workflow"), { text: "The workflow wrote a.txt." });
		const workflow = await startWorkflow(app, "write a.txt");
		const page = await app.open(`#/s/${workflow.sessionId}`);

		const card = await armedCard(page, "write_file");
		// A workflow's decision is allow or deny: no "always" for a chat it is not.
		expect(await card.getByRole("button", { name: /Always allow/ }).count()).toBe(0);
		await card.getByRole("button", { name: /Allow once/ }).click();
		await card.waitFor({ state: "detached" });
		expect(await workflowStatus(app, workflow.id)).toBe("ready");
		expect(existsSync(join(app.root, "a.txt"))).toBe(false);

		// Nothing goes into the Session as a chat message while its workflow lasts, and it says so.
		const box = page.getByRole("textbox", { name: "Message" });
		expect(await box.isDisabled()).toBe(true);
		expect(await page.getByRole("status").filter({ hasText: "takes no chat message" }).count()).toBe(1);

		await page.getByRole("button", { name: "Resume" }).click();
		await page.getByText("The workflow wrote a.txt.").waitFor();
		expect(readFileSync(join(app.root, "a.txt"), "utf8")).toBe("from the workflow");
		// Ended: the Session is a chat again.
		await page.getByRole("region", { name: "Workflow" }).waitFor({ state: "detached" });
		await expect.poll(() => box.isDisabled()).toBe(false);
		expect(await workflowStatus(app, workflow.id)).toBe("completed");
	});

	it("a waiting workflow shows its pending approval after a server restart; Deny, Resume, or Cancel", async () => {
		const first = await startApp();
		first.reply(write("b.txt", "never"));
		const workflow = await startWorkflow(first, "write b.txt");
		await expect.poll(() => workflowStatus(first, workflow.id)).toBe("waiting_approval");
		await first.server.close();

		const app = await startApp({ home: first.home, root: first.root });
		const page = await app.open(`#/s/${workflow.sessionId}`);
		const card = await armedCard(page, "write_file");
		await card.press("n");
		await card.waitFor({ state: "detached" });
		expect(await workflowStatus(app, workflow.id)).toBe("ready");
		await page.getByRole("button", { name: "Cancel the workflow" }).click();
		await page.getByRole("region", { name: "Workflow" }).waitFor({ state: "detached" });
		expect(await workflowStatus(app, workflow.id)).toBe("cancelled");
		expect(existsSync(join(app.root, "b.txt"))).toBe(false);
	});

	it("a refused message comes back into the composer instead of being wiped", async () => {
		const app = await startApp();
		const page = await app.open();
		await page.getByRole("button", { name: "Start the Session" }).click();
		await page.waitForURL(/#\/s\//);
		const box = page.getByRole("textbox", { name: "Message" });
		await box.waitFor();
		// The server goes away under the tab: the send fails, and the text is kept.
		await app.server.close();
		await box.fill("keep this text");
		await box.press("Enter");
		await page.getByRole("alert").waitFor();
		expect(await box.inputValue()).toBe("keep this text");
	});
});

import { describe, expect, it } from "vitest";
import { newSession, send, startApp, waitIdle } from "./harness.js";

const FAILURE = { fault: { kind: "status", status: 503, message: "upstream overloaded" } } as const;

/** The seconds the countdown shows ("Retrying in 3.4 s" → 3.4). */
async function shownSeconds(page: import("playwright-core").Page): Promise<number> {
	const text = (await page.locator(".countdown").textContent()) ?? "";
	return Number.parseFloat(text);
}

describe("recovery: reconnect waits, the auth lock, compaction", { timeout: 60_000 }, () => {
	it("the reconnect countdown ticks with its attempt number; Retry now skips the wait", async () => {
		// A wait longer than the test may take: only Retry now can bring the answer in time.
		const app = await startApp({ settings: { reconnect: { baseMs: 120_000, capMs: 120_000 } } });
		const page = await app.open();
		await newSession(page);
		app.reply(FAILURE, { text: "Back online." });
		await send(page, "hello");
		const banner = page.getByRole("region", { name: "Reconnecting" });
		await banner.waitFor();
		expect(await banner.textContent()).toContain("attempt 1");
		// Only the failure and its attempt are announced: the ticking countdown is in no live region.
		const live = banner.getByRole("status");
		expect(await live.textContent()).toContain("attempt 1");
		expect(await live.textContent()).toContain("upstream overloaded");
		expect(await page.locator('[role="status"] .countdown, [aria-live] .countdown').count()).toBe(0);
		expect(await page.locator(".countdown").count()).toBe(1);
		const before = await shownSeconds(page);
		expect(before).toBeLessThanOrEqual(120);
		await expect.poll(() => shownSeconds(page), { timeout: 30_000 }).toBeLessThan(before - 0.3);
		await banner.getByRole("button", { name: "Retry now" }).click();
		await page.getByText("Back online.").waitFor();
		await waitIdle(page);
		expect(await banner.count()).toBe(0);
		expect(app.provider.requests).toHaveLength(2);
	});

	it("Give up ends the Task during the wait", async () => {
		const app = await startApp({ settings: { reconnect: { baseMs: 8000 } } });
		const page = await app.open();
		await newSession(page);
		app.reply(FAILURE, { text: "never sent" });
		await send(page, "hello");
		const banner = page.getByRole("region", { name: "Reconnecting" });
		await banner.getByRole("button", { name: "Give up" }).click();
		await page.getByText("The Task was stopped.").waitFor();
		await waitIdle(page);
		expect(await banner.count()).toBe(0);
		expect(app.provider.requests).toHaveLength(1);
	});

	it("a refused credential locks the composer, naming it; a new value unlocks it, here or from elsewhere", async () => {
		const app = await startApp({ key: "bad" });
		const answer = () =>
			app.reply((request) =>
				request.headers.authorization === "Bearer good"
					? { text: "Welcome back." }
					: { fault: { kind: "status", status: 401, message: "Incorrect API key provided" } },
			);
		const page = await app.open();
		const id = await newSession(page);
		answer();
		await send(page, "hello");
		const lock = page.getByRole("form", { name: /Locked/ });
		await lock.waitFor();
		expect(await lock.textContent()).toContain("FAKE_KEY");
		expect(await page.getByRole("textbox", { name: "Message" }).isDisabled()).toBe(true);
		await lock.getByLabel("New value of FAKE_KEY").fill("good");
		await lock.getByRole("button", { name: "Save and unlock" }).click();
		await lock.waitFor({ state: "detached" });
		answer();
		await send(page, "hello again");
		await page.getByText("Welcome back.").waitFor();
		await waitIdle(page);

		// Locked again, then unlocked by a credential set through the API: the tab follows.
		await app.api("/credentials/FAKE_KEY", { method: "PUT", json: { value: "bad" } });
		answer();
		await send(page, "once more");
		await lock.waitFor();
		const locked = (await (await app.api(`/chat/sessions/${id}`)).json()) as { session: { lock: unknown } };
		expect(locked.session.lock).toEqual({
			reason: "auth",
			credential: "FAKE_KEY",
		});
		await app.api("/credentials/FAKE_KEY", { method: "PUT", json: { value: "good" } });
		await lock.waitFor({ state: "detached" });
		expect(await page.getByRole("textbox", { name: "Message" }).isDisabled()).toBe(false);
	});

	it("dismissing the lock notice unlocks the Session; the refused prompt is back in the composer to send again", async () => {
		const app = await startApp({ key: "bad" });
		const page = await app.open();
		await newSession(page);
		app.reply({ fault: { kind: "status", status: 401, message: "Incorrect API key provided" } });
		await send(page, "hello there");
		const lock = page.getByRole("form", { name: /Locked/ });
		await lock.getByRole("button", { name: "Dismiss", exact: true }).click();
		await lock.waitFor({ state: "detached" });
		const box = page.getByRole("textbox", { name: "Message" });
		expect(await box.isDisabled()).toBe(false);
		expect(await box.inputValue()).toBe("hello there");
		// Nothing was retried: one request, the refused one.
		expect(app.provider.requests).toHaveLength(1);
	});

	it("/compact in the composer compacts the context", async () => {
		const app = await startApp();
		const page = await app.open();
		await newSession(page);
		app.reply({ text: `A long answer. ${"Details upon details. ".repeat(80)}` });
		await send(page, `A long question. ${"Context upon context. ".repeat(80)}`);
		await waitIdle(page);
		app.reply({ text: "[summary]The user asked a long question; it was answered.[/summary]" });
		await send(page, "/compact");
		// A summary request and a Trace rotation: on a loaded machine more than the default 10 s.
		await page.getByText("Context compacted", { exact: false }).waitFor({ timeout: 30_000 });
		await waitIdle(page);
		expect(app.provider.requests).toHaveLength(2);
		expect(await page.getByText("Compacting the context (manual", { exact: false }).count()).toBe(1);
	});

	it("a model server that cannot be reached: the error names the URL tried (no secret in it) and reads as a sentence", async () => {
		const app = await startApp({ baseURL: "http://127.0.0.1:6000/v1?api-key=sk-in-the-query" });
		const page = await app.open();
		await newSession(page);
		await send(page, "hello");
		const notice = page.getByText("The model request failed: cannot connect to http://127.0.0.1:6000/v1 (model");
		await notice.waitFor();
		expect(await notice.textContent()).toContain('its port is one fetch refuses to connect to ("bad port"');
		expect(await page.content()).not.toContain("sk-in-the-query");
		await waitIdle(page);
	});
});

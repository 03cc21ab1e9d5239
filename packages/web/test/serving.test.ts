import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { newSession, startApp } from "./harness.js";

describe("the server serves the built web app", { timeout: 30_000 }, () => {
	it("at / with the token cookie, its hashed assets behind the token; without the token, the 401 page", async () => {
		const app = await startApp();
		const signIn = await fetch(app.url, { redirect: "manual" });
		expect(signIn.status).toBe(302);
		const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
		expect(cookie).toMatch(/^omniloop_token=/);

		const page = await fetch(`${app.server.origin}/`, { headers: { cookie } });
		expect(page.status).toBe(200);
		const html = await page.text();
		expect(html).toContain('<div id="root">');
		const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
		expect(script).toBeDefined();
		const asset = await fetch(`${app.server.origin}${script}`, { headers: { cookie } });
		expect(asset.status).toBe(200);
		expect(asset.headers.get("content-type")).toContain("text/javascript");
		expect(asset.headers.get("cache-control")).toContain("immutable");

		expect((await fetch(`${app.server.origin}${script}`)).status).toBe(401);
		expect((await fetch(`${app.server.origin}/assets/..%2Fpackage.json`, { headers: { cookie } })).status).toBe(404);
		expect((await fetch(`${app.server.origin}/assets/missing.js`, { headers: { cookie } })).status).toBe(404);
		const anonymous = await fetch(`${app.server.origin}/`);
		expect(anonymous.status).toBe(401);
		expect(await anonymous.text()).toContain("omniloop serve");
	});

	it("a link to a Session that does not exist says so, and the tab's stream stays up", async () => {
		const app = await startApp();
		const page = await app.open("#/s/no-such-session");
		await page.getByText("There is no Session", { exact: false }).waitFor();
		await page.getByRole("link", { name: "Start a new one" }).click();
		const id = await newSession(page);
		expect(await page.locator(`[data-session-id="${id}"]`).count()).toBe(1);
	});

	it("a new Session in a folder of the workspace root; one outside it is refused with the server's reason", async () => {
		const app = await startApp();
		mkdirSync(join(app.root, "sub"));
		const page = await app.open();
		const folder = page.getByRole("textbox", { name: "Workspace folder" });
		await folder.fill("/etc");
		await page.getByRole("button", { name: "Start the Session" }).click();
		const refusal = await page.getByRole("alert").textContent();
		expect(refusal).toContain("workspace");
		await folder.fill(join(app.root, "sub"));
		await newSession(page);
		expect(await page.locator(".chat-meta .workspace").textContent()).toBe(join(app.root, "sub"));
	});
});

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { newSession, startApp } from "./harness.js";

describe("the server serves the built web app", { timeout: 30_000 }, () => {
	it("at / and its hashed assets without the token (they hold no data), with the browser headers; the API needs it", async () => {
		const app = await startApp();
		const page = await fetch(`${app.server.origin}/`);
		expect(page.status).toBe(200);
		const html = await page.text();
		expect(html).toContain('<div id="root">');
		const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
		expect(script).toBeDefined();
		const asset = await fetch(`${app.server.origin}${script}`);
		expect(asset.status).toBe(200);
		expect(asset.headers.get("content-type")).toContain("text/javascript");
		expect(asset.headers.get("cache-control")).toContain("immutable");
		for (const [what, response] of [
			["page", page],
			["asset", asset],
		] as const) {
			expect(response.headers.get("content-security-policy"), what).toContain("default-src 'self'");
			expect(response.headers.get("x-content-type-options"), what).toBe("nosniff");
			expect(response.headers.get("referrer-policy"), what).toBe("no-referrer");
			expect(response.headers.get("x-frame-options"), what).toBe("DENY");
			expect(response.headers.get("set-cookie"), what).toBeNull();
		}
		expect((await fetch(`${app.server.origin}/assets/..%2Fpackage.json`)).status).toBe(404);
		expect((await fetch(`${app.server.origin}/assets/missing.js`)).status).toBe(404);
		expect((await fetch(`${app.server.origin}/chat/sessions`)).status).toBe(401);
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
		const folder = page.getByLabel("Folder");
		await folder.fill("/etc");
		await page.getByRole("button", { name: "Start the Session" }).click();
		const refusal = await page.getByRole("alert").textContent();
		expect(refusal).toContain("workspace");
		await folder.fill(join(app.root, "sub"));
		await newSession(page);
		expect(await page.locator(".chat-meta .workspace").textContent()).toBe(join(app.root, "sub"));
	});
});

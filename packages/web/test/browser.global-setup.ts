import { type BrowserServer, chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { CHROMIUM, CHROMIUM_ARGS } from "../scripts/chromium.mjs";

declare module "vitest" {
	export interface ProvidedContext {
		/** The one Chromium every browser test connects to. */
		chromiumWs: string;
	}
}

let browser: BrowserServer | undefined;

/**
 * The web app's tests open the built app (build.global-setup.ts, run before this) in a real
 * browser: one Chromium that every test file connects to (each test gets a fresh context: its own
 * cookies and storage). Playwright gives the browser a fresh profile folder.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
	browser = await chromium.launchServer({
		executablePath: CHROMIUM,
		args: ["--headless", ...CHROMIUM_ARGS],
		headless: true,
	});
	project.provide("chromiumWs", browser.wsEndpoint());
	return async () => {
		await browser?.close();
	};
}

import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type BrowserServer, chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { CHROMIUM, CHROMIUM_ARGS } from "../scripts/chromium.mjs";

const root = fileURLToPath(new URL("../../..", import.meta.url));

declare module "vitest" {
	export interface ProvidedContext {
		/** The one Chromium every browser test connects to. */
		chromiumWs: string;
	}
}

let browser: BrowserServer | undefined;

/**
 * The web app's tests open the built app in a real browser: build it once (a fresh clone has no
 * dist/), and start one Chromium that every test file connects to (each test gets a fresh
 * context: its own cookies and storage). Playwright gives the browser a fresh profile folder.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
	try {
		await promisify(execFile)(join(root, "node_modules", ".bin", "vite"), ["build", "--logLevel", "warn"], {
			cwd: join(root, "packages", "web"),
		});
	} catch (error) {
		const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
		throw new Error(`building the web app for its browser tests failed:\n${stdout}${stderr}`);
	}
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

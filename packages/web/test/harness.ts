import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SystemConfigInput } from "@omniloop/core";
import { FakeProviderServer, type FakeReplySource, fakeModelYaml } from "@omniloop/core/testing";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, inject } from "vitest";
import { createServer, type RunningServer } from "../../server/src/index.js";
import { bearerApi } from "../../server/test/bearer-api.js";
import { DropProxy } from "./drop-proxy.js";

let browser: Promise<Browser> | undefined;

/** The one Chromium of the run (started by the global setup), connected once per test file. */
function sharedBrowser(): Promise<Browser> {
	browser ??= chromium.connect(inject("chromiumWs"));
	return browser;
}

afterAll(async () => {
	if (browser !== undefined) await (await browser).close();
});

const cleanups: (() => Promise<void> | void)[] = [];

/** Runs after the test, before what it started earlier (the server, the browser context) closes. */
export function onCleanup(cleanup: () => Promise<void> | void): void {
	cleanups.push(cleanup);
}
const pageErrors: Error[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
	const errors = pageErrors.splice(0);
	if (errors.length > 0)
		throw new Error(`the app threw in the browser:\n${errors.map((e) => e.stack ?? e.message).join("\n")}`);
});

export interface AppOptions {
	/** The value of the model's credential `FAKE_KEY` (the provider accepts only "good"). */
	key?: string;
	settings?: SystemConfigInput;
	/** More fields of `models.main` in omniloop.yaml (a price, say). */
	modelExtra?: string;
	/** A home made beforehand (a Session written into it). */
	home?: string;
	/** A workspace root used before (a restart on the same home sees its Sessions). */
	root?: string;
	/** More agents for omniloop.yaml, one line each (`helper: { model: main, description: … }`). */
	agents?: string[];
	/** The server's own settings (`storeBusyMs`, say). */
	server?: { storeBusyMs?: number };
	/** The model's baseURL in place of the fake provider's (a server that cannot be reached). */
	baseURL?: string;
	/** More of the server's environment (e.g. `OMNILOOP_BWRAP`). */
	env?: Record<string, string>;
}

export interface App {
	server: RunningServer;
	provider: FakeProviderServer;
	proxy: DropProxy;
	home: string;
	root: string;
	/** The URL the browser opens (through the proxy), the token in its fragment. */
	url: string;
	context: BrowserContext;
	/** A new tab, signed in (the token taken from the URL's `#token=`), on `hash`. */
	open(hash?: string): Promise<Page>;
	reply(...replies: FakeReplySource[]): void;
	api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

export function tempDirs(): { home: string; root: string } {
	const base = realpathSync(mkdtempSync(join(tmpdir(), "omniloop-web-")));
	const home = join(base, "home");
	const root = join(base, "work");
	mkdirSync(home);
	mkdirSync(root);
	cleanups.push(() => rmSync(base, { recursive: true, force: true }));
	return { home, root };
}

/**
 * The real server (from source) on a free port, its model an openai-compatible one served by
 * the fake provider, behind a proxy that can drop connections; and a fresh browser context.
 */
export async function startApp(options: AppOptions = {}): Promise<App> {
	const provider = await FakeProviderServer.start();
	cleanups.push(() => provider.close());
	const dirs = tempDirs();
	const home = options.home ?? dirs.home;
	const root = options.root ?? dirs.root;
	const yaml = fakeModelYaml(options.baseURL ?? `${provider.url}/v1`, {
		...(options.modelExtra === undefined ? {} : { model: options.modelExtra }),
		...(options.agents === undefined ? {} : { agents: options.agents }),
	});
	writeFileSync(join(root, "omniloop.yaml"), yaml);
	writeFileSync(join(root, "notes.txt"), "one\ntwo\nthree\n");
	const server = await createServer({
		port: 0,
		home,
		configDir: root,
		workspaceRoots: [root],
		env: { FAKE_KEY: options.key ?? "good", ...options.env },
		token: "web-test-token",
		report: () => {},
		...(options.settings === undefined ? {} : { settings: options.settings }),
		...(options.server === undefined ? {} : { server: options.server }),
	});
	cleanups.push(() => server.close());
	const proxy = await DropProxy.start(server.port);
	cleanups.push(() => proxy.close());
	const context = await (await sharedBrowser()).newContext({ viewport: { width: 1200, height: 800 } });
	context.setDefaultTimeout(10_000);
	cleanups.push(() => context.close());
	const origin = `http://127.0.0.1:${proxy.port}`;
	const url = `${origin}/#token=${server.token}`;
	const api = bearerApi(server.origin, server.token);
	return {
		server,
		provider,
		proxy,
		home,
		root,
		url,
		context,
		async open(hash = "") {
			const page = await context.newPage();
			// An uncaught error in the app fails the test that caused it.
			page.on("pageerror", (error) => pageErrors.push(error));
			// So does anything the server's Content-Security-Policy refuses: the app must need none of it.
			page.on("console", (message) => {
				if (message.type() === "error" && message.text().includes("Content Security Policy")) {
					pageErrors.push(new Error(`CSP: ${message.text()}`));
				}
			});
			await page.goto(url);
			if (hash !== "") await page.goto(`${origin}/${hash}`);
			return page;
		},
		reply: (...replies) => provider.enqueue(...replies),
		api,
	};
}

/** Creates a Session from the home screen and waits for its chat. */
export async function newSession(page: Page): Promise<string> {
	await page.getByRole("button", { name: "Start the Session" }).click();
	await page.waitForURL(/#\/s\//);
	return decodeURIComponent(page.url().split("#/s/")[1] ?? "");
}

/** Types a message in the composer and sends it with Enter. */
export async function send(page: Page, text: string): Promise<void> {
	const box = page.getByRole("textbox", { name: /Message|Steer the agent/ });
	await box.fill(text);
	await box.press("Enter");
}

/** Waits until the sidebar says this Session is idle again. */
export async function waitIdle(page: Page): Promise<void> {
	await page.locator(".chat-meta .badge", { hasText: "idle" }).waitFor();
}

/** A reply whose text streams in `chunks` pieces, `delayMs` apart. */
export function slowText(text: string, chunks: number, delayMs: number): FakeReplySource {
	const size = Math.ceil(text.length / chunks);
	const pieces: string[] = [];
	for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
	return { text: pieces, chunkDelayMs: delayMs };
}
